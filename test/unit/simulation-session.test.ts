/**
 * What `npm run simulate` prints and tells the shrinker (src/simulation/session.ts, cli-run.ts; issue
 * 33): a failure's lines (seed, step with its refs and params, each invariant and its lines), what a
 * trial reports (the target invariant when it is among several), and the one line for a missing test
 * server.
 */
import { testServerBinary } from '../../src/simulation/test-server-binary';
import { describeFailure, stepLine, trialFailure } from '../../src/simulation/session';
import type { RunResult, Step } from '../../src/simulation/types';

const step: Step = { n: 6, kind: 'sandbox_charge', refs: [{ kind: 'merchant', index: 0 }], params: { amount: 1500, outcome: 'succeed' } };
const failure: NonNullable<RunResult['failure']> = {
  step,
  violations: [
    { invariant: 'ledger', lines: ['unfinished resource: txn_1'] },
    { invariant: 'balances', lines: Array.from({ length: 32 }, (_, i) => `line ${i}`) },
  ],
};

test('a failure: the seed, the step, each invariant with its lines (at most 30 each)', () => {
  const lines = describeFailure(77, failure);
  expect(lines[0]).toBe('FAILED seed 77 after step 6: sandbox_charge refs=[merchant#0] {"amount":1500,"outcome":"succeed"}');
  expect(lines).toContain('  invariant: ledger');
  expect(lines).toContain('    unfinished resource: txn_1');
  expect(lines).toContain('  invariant: balances');
  expect(lines).toContain('    line 29');
  expect(lines).not.toContain('    line 30');
  expect(lines.at(-1)).toBe('    … 2 more');
  expect(stepLine({ n: 1, kind: 'time_jump', params: { ms: 3000 } })).toBe('time_jump {"ms":3000}');
});

test('a trial reports the target invariant when it failed among others, else the first; null when clean', () => {
  const result: RunResult = { seed: 1, stepsRun: 7, trace: [], failure };
  expect(trialFailure(result, 'balances')).toEqual({ invariant: 'balances', step: 6 });
  expect(trialFailure(result, 'events')).toEqual({ invariant: 'ledger', step: 6 });
  expect(trialFailure({ ...result, failure: null }, 'balances')).toBeNull();
});

test('a missing test server is one line naming where it looked and how to get it', () => {
  expect(testServerBinary({ TEMPORAL_TEST_SERVER_PATH: '/nowhere/temporal-test-server' }, '/elsewhere')).toEqual({
    missing: 'the Temporal test server is missing (looked at /nowhere/temporal-test-server, /elsewhere/.cache/temporal/bin/temporal-test-server): install it with "bash scripts/install-temporal.sh" or set TEMPORAL_TEST_SERVER_PATH',
  });
  expect(testServerBinary({}, '/elsewhere')).toEqual({ missing: expect.stringMatching(/^the Temporal test server is missing \(looked at \/elsewhere\/.cache/) });
  expect(testServerBinary({ TEMPORAL_TEST_SERVER_PATH: __filename })).toEqual({ path: __filename });
});
