// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import '../src/support/node-version';
import { CommanderError } from 'commander';
import { simulateCommand } from '../src/simulation/cli-options';
import { runSimulateCli } from '../src/simulation/cli-run';

/**
 * `npm run simulate -- [--seed S] [--steps N] [--hours H] [--no-shrink] [--keep-db] [--defect NAME]`
 * (issue 33, docs/simulation.md): the whole engine in this process, driven by a plan drawn from the
 * seed, every invariant after every step. The seed is printed first. A failure prints the seed, the
 * step and the invariant with its lines, shrinks the plan and writes a reproduction jest file (its path
 * printed), and exits 1. Exits 2 when the run could not happen (a missing piece: one line saying what).
 */
simulateCommand(async (options) => {
  process.exit(await runSimulateCli(options, (line) => process.stdout.write(`${line}\n`)));
})
  .exitOverride()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
    process.stderr.write(`simulate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  });
