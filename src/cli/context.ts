/**
 * What a run of the CLI reads and writes, given to buildProgram (src/cli/program.ts) and to
 * runCommandLine (src/cli/run.ts): its settings, its two output streams and its input. Every command
 * reads the environment from `env` and writes only through `stdout` and `stderr`, never through
 * `process`; so the same commands run as `npm run cli` (src/cli.ts: processContext(), the process's
 * own) or inside another process (the tests: runCommandLine with captured output), and answer the
 * same {code, stdout, stderr}. How the run ends is runCommandLine's answer, the exit code: src/cli.ts
 * alone exits the process with it.
 */
export interface CliContext {
  /** The settings (DATABASE_URL, TEMPORAL_ADDRESS, PARTNER_*, BULK_ACTIONS_PER_SECOND, …): never process.env. */
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  /** `--password-stdin`: what is piped in; read once, to its end. */
  stdin(): AsyncIterable<Uint8Array | string>;
}

/** Where a stream of the CLI goes, and what commander's help asks of it. */
export interface CliOutput {
  write(text: string): void;
  /** The width help wraps at: a terminal's columns; undefined (commander's 80) otherwise. */
  columns?(): number | undefined;
}

/** The CLI's own process: process.env, its stdout, stderr and stdin. */
export function processContext(): CliContext {
  const stream = (s: NodeJS.WriteStream): CliOutput => ({
    write: (text) => void s.write(text),
    columns: () => (s.isTTY ? s.columns : undefined),
  });
  return { env: process.env, stdout: stream(process.stdout), stderr: stream(process.stderr), stdin: () => process.stdin };
}

/** A run's output kept as text: what its process would have printed on stdout and stderr. */
export interface CapturedOutput {
  stdout: string;
  stderr: string;
}

/**
 * A context for a run inside another process (runCommandLine in a test): exactly `env`, `input` on
 * stdin (nothing by default: stdin at its end), and the output kept in `output` as it is written.
 */
export function capturingContext(env: NodeJS.ProcessEnv, input = ''): { context: CliContext; output: CapturedOutput } {
  const output: CapturedOutput = { stdout: '', stderr: '' };
  const context: CliContext = {
    env,
    stdout: { write: (text) => void (output.stdout += text) },
    stderr: { write: (text) => void (output.stderr += text) },
    stdin: async function* () {
      if (input) yield input;
    },
  };
  return { context, output };
}
