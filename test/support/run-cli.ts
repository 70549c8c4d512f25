import { execFile } from 'node:child_process';
import path from 'node:path';
import { capturingContext } from '../../src/cli/context';
import { runCommandLine } from '../../src/cli/run';

const ROOT = path.resolve(__dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /**
   * As its own process, for a test about the process: the exit code of a real process, stdin through
   * a pipe, signals. Else (the default) in this process: src/cli/run.ts with the same environment and
   * the output captured, which answers the same {code, stdout, stderr} (test/unit/cli-context.test.ts)
   * without a process's start (about a CPU-second each).
   */
  process?: boolean;
  /** As its own process through tsx, exactly as `npm run cli` runs it (implies `process`). */
  viaTsx?: boolean;
  /** What stdin holds (`--password-stdin`); nothing by default (stdin at its end). */
  input?: string;
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

/**
 * Runs the CLI with exactly `env` (jest's NODE_OPTIONS removed), from the project root: in this process
 * unless `options.process` or `options.viaTsx`. Runs at once (Promise.all) share nothing: each has its
 * own program, environment and output.
 */
export function execCli(args: string[], env: NodeJS.ProcessEnv, options: CliOptions = {}): Promise<CliResult> {
  const childEnv = { ...env };
  delete childEnv.NODE_OPTIONS;
  return options.process || options.viaTsx ? execCliProcess(args, childEnv, options) : execCliHere(args, childEnv, options.input);
}

async function execCliHere(args: string[], env: NodeJS.ProcessEnv, input: string | undefined): Promise<CliResult> {
  const { context, output } = capturingContext(env, input);
  const code = await runCommandLine(args, context);
  return { code, stdout: output.stdout, stderr: output.stderr };
}

function execCliProcess(args: string[], env: NodeJS.ProcessEnv, options: CliOptions): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, cliArgv(args, options), { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: number | string }).code as number | null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
    child.stdin!.end(options.input ?? '');
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

/** Runs the CLI (in this process: execCli) against the suite's PostgreSQL and Temporal, on `taskQueue`. */
export function runCli(taskQueue: string, ...args: string[]): Promise<CliResult> {
  return execCli(args, cliEnv(taskQueue));
}
