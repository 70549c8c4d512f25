import path from 'node:path';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../domain/search-attributes';
import { findTemporalCli, TASK_PROBLEMS_TO_FLAG } from '../temporal/dev-server';
import type { PieceSpec, SharedPieceSpec } from './piece';
import type { TopologyPorts } from './ports';
import { httpStatus } from './probes';
import { temporalProbe } from './temporal-probe';

/** The server release the pinned CLI's dev server runs (`temporal --version`: "Server 1.32.0, UI 2.54.1"). */
export const DEV_SERVER_VERSION = '1.32.0';

/**
 * `--temporal dev`: the Temporal CLI's dev server (SQLite in DIR/temporal-dev.db), with the flags
 * `npm start` gives it (src/temporal/dev-server.ts) and its built-in UI. The CLI process is the
 * server itself, so its pid is the one to signal.
 */
export function temporalDevSpec(opts: { dir: string; ports: TopologyPorts; namespace: string; cliPath?: string }): PieceSpec {
  const cli = findTemporalCli(opts.cliPath);
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.ports.temporal),
    '--ui-port',
    String(opts.ports.temporalUi),
    '--db-filename',
    path.join(opts.dir, 'temporal-dev.db'),
    '--namespace',
    opts.namespace,
    '--log-level',
    'warn',
    ...SEARCH_ATTRIBUTE_DEFINITIONS.flatMap((d) => ['--search-attribute', `${d.name}=${d.type}`]),
    ...['--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=OFF'],
    ...['--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true'],
    ...['--dynamic-config-value', `system.numConsecutiveWorkflowTaskProblemsToTriggerSearchAttribute=${TASK_PROBLEMS_TO_FLAG}`],
  ];
  return {
    name: 'temporal',
    kind: 'dev',
    version: DEV_SERVER_VERSION,
    port: opts.ports.temporal,
    command: () => ({ file: cli, args }),
    probe: temporalProbe(`127.0.0.1:${opts.ports.temporal}`, opts.namespace),
    startTimeoutMs: 60_000,
  };
}

/** The dev server's UI lives in its process. */
export function devUiSpec(ports: TopologyPorts): SharedPieceSpec {
  return { name: 'temporal-ui', kind: 'dev-ui', port: ports.temporalUi, processOf: 'temporal', probe: async () => ((await httpStatus(`http://127.0.0.1:${ports.temporalUi}/`)) === 200 ? 'ok' : 'starting') };
}
