import fs from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../domain/search-attributes';

export interface DevServerOptions {
  dataDir: string;
  ip?: string;
  port?: number;
  uiPort?: number;
  namespace?: string;
  /** TEMPORAL_CLI_PATH; otherwise the project's install, `temporal` on PATH, or the SDK's download. */
  cliPath?: string;
  /** Keep state in `<dataDir>/temporal.db` (true) or in memory (false, for tests). */
  persistent?: boolean;
}

export interface RunningDevServer {
  address: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

/** The `temporal` CLI this machine has: explicit path, the project's pip install, or PATH. */
export function findTemporalCli(explicit?: string): string | undefined {
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new Error(`TEMPORAL_CLI_PATH=${explicit} does not exist`);
    return explicit;
  }
  const candidates = [path.resolve('.cache/temporal/bin/temporal')];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir) candidates.push(path.join(dir, 'temporal'));
  return candidates.find((c) => fs.existsSync(c));
}

/**
 * Runs `temporal server start-dev` with the Web UI, the custom search attributes registered, and the
 * SQLite pragmas that raise its throughput (WAL, synchronous=OFF).
 */
export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const cli = findTemporalCli(options.cliPath);
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? 7233;
  const ui = options.uiPort !== undefined && options.uiPort > 0;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const extraArgs = [
    ...SEARCH_ATTRIBUTE_DEFINITIONS.flatMap((d) => ['--search-attribute', `${d.name}=${d.type}`]),
    ...['--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=OFF'],
    ...['--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true'],
  ];
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
      ip,
      port,
      ui,
      ...(ui ? { uiPort: options.uiPort } : {}),
      namespace: options.namespace ?? 'default',
      ...(options.persistent === false ? {} : { dbFilename: path.join(options.dataDir, 'temporal.db') }),
      log: { format: 'pretty', level: 'warn' },
      extraArgs,
    },
  });
  return {
    address: `${ip}:${port}`,
    uiUrl: ui ? `http://${ip}:${options.uiPort}` : null,
    stop: () => env.teardown(),
  };
}
