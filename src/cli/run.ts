import { CommanderError } from 'commander';
import { applyTopologyEnv } from '../topology/cli-env';
import type { CliContext } from './context';
import { buildProgram } from './program';

/**
 * One run of the CLI on `argv` (the words after `cli`) in `context`; answers the exit code. JSON on the
 * context's stdout and 0; an error on its stderr and 1: a usage error with the command's usage line
 * (commander prints it), a thrown error as `error: <message>`; help on stdout and 0. src/cli.ts exits
 * the process with the answer; a test runs it in its own process with captured output, and gets what
 * the process would print and its exit code. Runs at once share nothing: each has its own program and
 * its own copy of the environment.
 */
export async function runCommandLine(argv: readonly string[], context: CliContext): Promise<number> {
  // While `npm run topology -- up` runs, its database and Temporal (docs/deployment.md): filled into
  // this run's copy of the environment, never the caller's.
  const env = { ...context.env };
  applyTopologyEnv(env);
  const run: CliContext = { ...context, env };
  try {
    await buildProgram(run).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    // Commander printed its own (help, a usage error) already, as did a command that ends with a code (CliExit).
    if (error instanceof CommanderError) return error.exitCode;
    run.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
