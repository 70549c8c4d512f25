import type { Config } from '../config';
import { isPortFree } from '../support/port-free';
import { StartupError } from '../support/startup-error';

/**
 * The fixed ports `npm start` opens itself, each with the setting that moves it. The dev server's
 * ports (TEMPORAL_DEV_PORT, TEMPORAL_UI_PORT) and the embedded database's are checked where they start.
 */
function ownPorts(config: Config): Array<{ port: number; setting: string; what: string }> {
  const ports = [
    { port: config.sandboxPort, setting: 'PORT', what: 'the sandbox API' },
    { port: config.livePort, setting: 'LIVE_PORT', what: 'the live API' },
    { port: config.codec.port, setting: 'CODEC_PORT', what: 'the Temporal UI codec endpoint' },
    { port: config.metricsPort, setting: 'METRICS_PORT', what: "the API's metrics" },
    { port: config.webPort, setting: 'WEB_PORT', what: 'the web port (portal, checkout)' },
    { port: config.docsPort, setting: 'DOCS_PORT', what: 'the reference site' },
  ];
  if (process.env.RUN_WORKER !== 'false') ports.push({ port: config.workerMetricsPort, setting: 'WORKER_METRICS_PORT', what: "the worker's metrics" });
  return ports.filter((p) => p.port > 0);
}

/**
 * Before anything starts: every port `npm start` would open is free, else one clear line per port
 * in use (which port, which setting, what to do) instead of a stack trace from `listen`.
 */
export async function requireOwnPortsFree(config: Config): Promise<void> {
  const taken: string[] = [];
  for (const { port, setting, what } of ownPorts(config)) {
    const host = setting === 'CODEC_PORT' ? config.codec.host : setting.includes('METRICS') ? config.metricsHost : config.host;
    if (!(await isPortFree(host, port))) taken.push(`port ${port} on ${host} (${what}, ${setting}) is in use`);
  }
  if (taken.length === 0) return;
  throw new StartupError(
    `${taken.join('; ')}: another \`npm start\` is probably running. Stop it (Ctrl-C in its terminal), or give this one other ports (e.g. ${ownPorts(config)
      .map((p) => `${p.setting}=${p.port + 100}`)
      .join(' ')}).`,
  );
}
