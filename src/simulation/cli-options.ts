import { randomInt } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFECTS, type DefectName } from './defects';
import type { Mix } from './plan';

/** `npm run simulate -- [--seed S] [--steps N] [--mix all|sandbox] [--hours H | --sweep N] [--no-shrink] [--keep-db] [--defect NAME] [--repro-dir DIR] [--max-trials N] [--verbose]`. */
export interface SimulateOptions {
  /** The (first) seed; drawn at random when not given (and printed first). */
  seed: number;
  seedGiven: boolean;
  /** Steps per seed. */
  steps: number;
  /** Which steps the plans draw: every kind, or the sandbox-only mix (plan-sandbox.ts). */
  mix: Mix;
  /** Run seed after seed (seed, seed + 1, …) until this many hours have passed; undefined: one seed. */
  hours: number | undefined;
  /** Run this many seeds (seed, seed + 1, …), one line each, however they end (issue 44); undefined: one seed. */
  sweep: number | undefined;
  /** With --sweep: how many processes run its seeds (blocks of consecutive seeds; default 1). */
  parallel: number;
  /** Run the seed's plan twice and name the first step whose database state hashes differ (issue 44). */
  replayCheck: boolean;
  /** Shrink a failing plan and write its reproduction (default on). */
  shrink: boolean;
  /** Keep each run's database (its name is printed) instead of dropping it. */
  keepDb: boolean;
  /** An injected defect (to see the simulator find one): src/simulation/defects/. */
  defect: DefectName | undefined;
  /** Where the reproduction file goes. */
  reproDir: string;
  /** The shrinker's trial budget. */
  maxTrials: number;
  /** A line per step (its outcome, real seconds of step, settle and checks, the simulated clock), and what keeps a slow jump busy. */
  verbose: boolean;
}

/** The last line `npm run simulate` prints (issue 44's pinned interface): one JSON object. */
export interface SimulateSummary {
  seeds: number;
  steps: number;
  violations: number;
  engine_errors: number;
  steps_per_s: number;
}

export const DEFAULT_STEPS = 200;
export const MAX_SEED = 2 ** 31 - 1;

const whole = (name: string, min: number, max: number) => (text: string) => {
  if (!/^[0-9]{1,10}$/.test(text) || Number(text) < min || Number(text) > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}, not "${text}"`);
  return Number(text);
};

const hoursOf = (text: string) => {
  const n = Number(text);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || !(n > 0) || n > 24 * 30) throw new InvalidArgumentError(`--hours must be a number of hours above 0 (e.g. 0.5, 8), not "${text}"`);
  return n;
};

/** The command (for `--help` and the parse); `action` is what runs. */
export function simulateCommand(action: (options: SimulateOptions) => Promise<void>): Command {
  return new Command('simulate')
    .description('The deterministic simulation of the whole engine, with invariants after every step: docs/simulation.md')
    .addOption(new Option('--seed <seed>', 'the seed (default: random, printed first); with --hours the first of consecutive seeds').argParser(whole('--seed', 0, MAX_SEED)))
    .addOption(new Option('--steps <n>', 'steps per seed').argParser(whole('--steps', 1, 1_000_000)).default(DEFAULT_STEPS))
    .addOption(new Option('--mix <mix>', 'which steps the plans draw: every kind (all), or a sandbox merchant\'s only, drawn state-aware (sandbox)').choices(['all', 'sandbox']).default('all'))
    .addOption(new Option('--hours <h>', 'run seed after seed, each --steps long, until H hours have passed').argParser(hoursOf).conflicts('sweep'))
    .addOption(new Option('--parallel <p>', 'with --sweep: run its seeds in P processes at once (blocks of consecutive seeds)').argParser(whole('--parallel', 1, 64)).default(1))
    .addOption(new Option('--sweep <n>', 'run N seeds in a row (the first is --seed), each --steps long, a line each and a summary; a violation does not stop it').argParser(whole('--sweep', 1, 1_000_000)))
    .option('--shrink', 'on a failure, shrink the plan and write a reproduction (the default)', true)
    .option('--no-shrink', 'on a failure, print it and stop: no shrinking, no file')
    .option('--keep-db', 'keep each run\'s database (its name is printed) instead of dropping it', false)
    .addOption(new Option('--defect <name>', 'inject a defect on purpose, to watch the simulator find it').choices([...DEFECTS]))
    .addOption(new Option('--repro-dir <dir>', 'where the reproduction file is written').default('test/integration'))
    .addOption(new Option('--max-trials <n>', 'the shrinker\'s budget of trial runs').argParser(whole('--max-trials', 1, 100_000)).default(200))
    .option('--replay-check', 'run the seed\'s plan twice and name the first step after which the two databases differ (state-hash.ts)', false)
    .option('--verbose', 'a line per step (outcome, real time of step, settle and checks) and, every 20 s of a slow time jump or settle, what keeps it busy', false)
    .allowExcessArguments(false)
    .hook('preAction', (command) => {
      const o = command.opts<{ sweep?: number; parallel: number }>();
      if (o.parallel > 1 && o.sweep === undefined) command.error('--parallel needs --sweep N (the seeds it splits)', { exitCode: 2 });
      if (command.opts<{ replayCheck: boolean }>().replayCheck && (o.sweep !== undefined || command.opts<{ hours?: number }>().hours !== undefined)) command.error('--replay-check runs one seed (not with --sweep or --hours)', { exitCode: 2 });
    })
    .action(async (opts: { seed?: number; steps: number; mix: Mix; hours?: number; sweep?: number; parallel: number; replayCheck: boolean; shrink: boolean; keepDb: boolean; defect?: DefectName; reproDir: string; maxTrials: number; verbose: boolean }) => {
      await action({
        seed: opts.seed ?? randomInt(1, MAX_SEED),
        seedGiven: opts.seed !== undefined,
        steps: opts.steps,
        mix: opts.mix,
        hours: opts.hours,
        sweep: opts.sweep,
        parallel: opts.parallel,
        replayCheck: opts.replayCheck,
        shrink: opts.shrink,
        keepDb: opts.keepDb,
        defect: opts.defect,
        reproDir: opts.reproDir,
        maxTrials: opts.maxTrials,
        verbose: opts.verbose,
      });
    });
}
