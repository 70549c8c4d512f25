import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * How a test starts `src/cli.ts` as its own process: the CLI bundled once for the run by the
 * integration global setup (TEST_CLI_BUNDLE: the same code in one file, which starts in a third of the
 * time of `tsx` compiling and loading a few hundred modules), else through tsx as `npm run cli` does.
 * `viaTsx` forces the second (test/integration/cli.test.ts runs the CLI exactly as a user does).
 */
export function cliArgv(args: string[], options: { viaTsx?: boolean } = {}): string[] {
  const bundle = process.env.TEST_CLI_BUNDLE;
  return bundle && !options.viaTsx ? ['--enable-source-maps', bundle, ...args] : ['--import', 'tsx', 'src/cli.ts', ...args];
}

/** Runs the CLI with exactly `env` (jest's NODE_OPTIONS removed), from the project root. */
export function execCli(args: string[], env: NodeJS.ProcessEnv, options: { viaTsx?: boolean } = {}): Promise<CliResult> {
  const childEnv = { ...env };
  delete childEnv.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(process.execPath, cliArgv(args, options), { cwd: ROOT, env: childEnv, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: number | string }).code as number | null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

/** The environment of a CLI run against this worker's PostgreSQL and Temporal, on `taskQueue`. */
export function cliEnv(taskQueue: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: taskQueue,
    SECRETS_KEY: process.env.TEST_SECRETS_KEY,
    ...extra,
  };
}

/** Runs `src/cli.ts` as its own process against the suite's PostgreSQL and Temporal, on `taskQueue`. */
export function runCli(taskQueue: string, ...args: string[]): Promise<CliResult> {
  return execCli(args, cliEnv(taskQueue));
}
