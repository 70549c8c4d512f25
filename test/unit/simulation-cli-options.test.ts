/**
 * `npm run simulate`'s options (src/simulation/cli-options.ts, issue 33): defaults, a random seed when
 * none is given, --no-shrink, and clear refusals of bad values.
 */
import { DEFAULT_STEPS, simulateCommand, type SimulateOptions } from '../../src/simulation/cli-options';
import { KNOWN_SHUTDOWN_PANIC, SDK_PANIC_LINE, splitSeeds } from '../../src/simulation/cli-parallel';

async function parse(args: string[]): Promise<SimulateOptions> {
  let got: SimulateOptions | undefined;
  const command = simulateCommand(async (options) => {
    got = options;
  }).exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  await command.parseAsync(args, { from: 'user' });
  return got!;
}

test('defaults: a random seed, 200 steps, one seed, shrink on, the database dropped, the file in test/integration', async () => {
  const a = await parse([]);
  expect(a).toMatchObject({ seedGiven: false, steps: DEFAULT_STEPS, mix: 'all', hours: undefined, sweep: undefined, parallel: 1, replayCheck: false, shrink: true, keepDb: false, defect: undefined, reproDir: 'test/integration', maxTrials: 200, verbose: false });
  expect(Number.isInteger(a.seed) && a.seed > 0).toBe(true);
});

test('every option', async () => {
  expect(await parse(['--seed', '42', '--steps', '30', '--hours', '0.5', '--no-shrink', '--keep-db', '--defect', 'skip-charge-posting', '--repro-dir', '/tmp/x', '--max-trials', '9', '--verbose', '--mix', 'sandbox'])).toEqual({
    seed: 42, seedGiven: true, steps: 30, mix: 'sandbox', hours: 0.5, sweep: undefined, parallel: 1, replayCheck: false, shrink: false, keepDb: true, defect: 'skip-charge-posting', reproDir: '/tmp/x', maxTrials: 9, verbose: true,
  });
});

test('--sweep: N seeds, in P processes with --parallel', async () => {
  expect(await parse(['--seed', '7', '--sweep', '20', '--steps', '200'])).toMatchObject({ seed: 7, sweep: 20, steps: 200, hours: undefined, parallel: 1 });
  expect(await parse(['--seed', '7', '--sweep', '20', '--parallel', '2'])).toMatchObject({ sweep: 20, parallel: 2 });
});

test('an sdk-core panic on a child\'s stderr is recognised (the line its panic hook writes), and nothing else is', () => {
  expect(SDK_PANIC_LINE.test("thread 'tokio-runtime-worker' (25080) panicked at sdk-core/crates/sdk-core/src/worker/activities/local_activities.rs:997:33:")).toBe(true);
  expect(SDK_PANIC_LINE.test("thread 'main' panicked at src/lib.rs:1:1:")).toBe(true);
  expect(SDK_PANIC_LINE.test('   1: core::panicking::panic_fmt')).toBe(false);
  expect(SDK_PANIC_LINE.test('seed 7: 200 steps in 9.1 s: no violation')).toBe(false);
  // The one known at a worker's stop is told apart; any other panic is an engine error.
  expect(KNOWN_SHUTDOWN_PANIC.test("thread 'tokio-runtime-worker' (25080) panicked at sdk-core/crates/sdk-core/src/worker/activities/local_activities.rs:997:33:")).toBe(true);
  expect(KNOWN_SHUTDOWN_PANIC.test("thread 'tokio-runtime-worker' (25080) panicked at sdk-core/crates/sdk-core/src/worker/workflow/managed_run.rs:1048:18:")).toBe(false);
});

test('--parallel splits the seeds into blocks of consecutive seeds, as even as can be', () => {
  expect(splitSeeds(100, 5, 2)).toEqual([{ seed: 100, count: 3 }, { seed: 103, count: 2 }]);
  expect(splitSeeds(7, 2, 4)).toEqual([{ seed: 7, count: 1 }, { seed: 8, count: 1 }]);
});

test.each([
  [['--sweep', '0'], /--sweep must be a whole number from 1/],
  [['--parallel', '2'], /--parallel needs --sweep N/],
  [['--replay-check', '--sweep', '2'], /--replay-check runs one seed/],
  [['--sweep', '3', '--hours', '1'], /cannot be used with option '--sweep/],
  [['--seed', '-1'], /--seed must be a whole number/],
  [['--seed', '2147483648'], /--seed must be a whole number from 0 to 2147483647/],
  [['--steps', '0'], /--steps must be a whole number from 1/],
  [['--hours', 'x'], /--hours must be a number of hours/],
  [['--defect', 'nope'], /Allowed choices are skip-charge-posting/],
  [['--sed', '1'], /unknown option '--sed'/],
])('%j is refused: %s', async (args, message) => {
  await expect(parse(args)).rejects.toThrow(message);
});
