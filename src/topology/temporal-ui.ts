import fs from 'node:fs';
import path from 'node:path';
import type { PieceSpec } from './piece';
import type { TopologyPorts } from './ports';
import { httpStatus } from './probes';

/** The UI server release scripts/install-temporal-server.sh builds: the pinned CLI's UI. */
export const TEMPORAL_UI_VERSION = '2.54.1';

/**
 * The Temporal UI server (github.com/temporalio/ui-server/v2, its assets embedded) against the
 * topology's frontend, on the UI port `npm start` uses. Its config is DIR/temporal-ui/config/development.yaml.
 */
export function temporalUiSpec(opts: { uiServer: string; dir: string; ports: TopologyPorts; namespace: string }): PieceSpec {
  const root = path.join(opts.dir, 'temporal-ui');
  fs.mkdirSync(path.join(root, 'config'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'config', 'development.yaml'),
    [
      '# Written by npm run topology (src/topology/temporal-ui.ts).',
      `temporalGrpcAddress: 127.0.0.1:${opts.ports.temporal}`,
      'host: 127.0.0.1',
      `port: ${opts.ports.temporalUi}`,
      'enableUi: true',
      `defaultNamespace: ${opts.namespace}`,
      'cors:',
      '  cookieInsecure: true',
      '  allowOrigins: []',
      '',
    ].join('\n'),
  );
  return {
    name: 'temporal-ui',
    kind: 'ui-server',
    version: TEMPORAL_UI_VERSION,
    port: opts.ports.temporalUi,
    command: () => ({ file: opts.uiServer, args: ['--root', root, '--env', 'development', 'start'], cwd: root }),
    probe: async () => ((await httpStatus(`http://127.0.0.1:${opts.ports.temporalUi}/`)) === 200 ? 'ok' : 'starting'),
    startTimeoutMs: 60_000,
  };
}
