// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import './support/node-version';
import { CommanderError } from 'commander';
import { buildProgram } from './cli/program';
import { applyTopologyEnv } from './topology/cli-env';

/**
 * `npm run cli -- GROUP COMMAND …` (commands in src/cli/, one file per group): JSON on stdout and
 * exit 0; an error on stderr and exit 1 (a usage error with the command's usage line).
 */
// While `npm run topology -- up` runs, its database and Temporal (docs/deployment.md).
applyTopologyEnv();
buildProgram()
  .parseAsync(process.argv.slice(2), { from: 'user' })
  .then(
    () => process.exit(0),
    (error: unknown) => {
      // Commander printed its own (help, a usage error) already.
      if (error instanceof CommanderError) process.exit(error.exitCode);
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
