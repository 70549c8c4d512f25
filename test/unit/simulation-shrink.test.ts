/**
 * The simulation's shrinker (src/simulation/shrink.ts, issue 33) on synthetic, pure predicates: it
 * cuts a failing plan to the steps that make it fail, keeps the same invariant failing, respects its
 * trial budget, and is deterministic.
 */
import { NothingToShrinkError, shrink, type ShrinkTrial, type TrialFailure } from '../../src/simulation/shrink';
import type { Plan, Step } from '../../src/simulation/types';

function planOf(size: number, seed = 42): Plan {
  const steps: Step[] = Array.from({ length: size }, (_, n) => ({ n, kind: n % 3 === 0 ? 'sandbox_charge' : 'time_jump', params: { i: n } }));
  return { seed, steps };
}

const has = (candidate: Plan, ...ns: number[]) => ns.every((n) => candidate.steps.some((s) => s.n === n));

/** Fails with `balances` iff steps 7 and 31 are both present. */
const sevenAndThirtyOne = async (candidate: Plan): Promise<TrialFailure | null> => (has(candidate, 7, 31) ? { invariant: 'balances' } : null);

test('shrinks a 60-step plan failing iff steps 7 and 31 are both there to exactly those two, in order, with their n', async () => {
  const trials: ShrinkTrial[] = [];
  const shrunk = await shrink(planOf(60), sevenAndThirtyOne, { onTrial: (t) => trials.push(t) });
  expect(shrunk.seed).toBe(42);
  expect(shrunk.steps).toEqual([planOf(60).steps[7], planOf(60).steps[31]]);
  expect(trials.length).toBeGreaterThan(1);
  expect(trials.length).toBeLessThan(100);
  expect(trials[0]).toMatchObject({ trial: 1, size: 60, failed: true, invariant: 'balances' });
  expect(trials.at(-1)!.best).toBe(2);
});

test('keeps the SAME invariant failing: a candidate failing with another invariant does not count', async () => {
  // Step 7 alone breaks `events`; 7 with 31 breaks `balances` (the target, given).
  const predicate = async (c: Plan): Promise<TrialFailure | null> => (has(c, 7, 31) ? { invariant: 'balances' } : has(c, 7) ? { invariant: 'events' } : null);
  const shrunk = await shrink(planOf(40), predicate, { invariant: 'balances' });
  expect(shrunk.steps.map((s) => s.n)).toEqual([7, 31]);
  // Learned from the whole plan when not given.
  const learned = await shrink(planOf(40), predicate);
  expect(learned.steps.map((s) => s.n)).toEqual([7, 31]);
});

test('a trial that names its failing step cuts the steps after it at once', async () => {
  const seen: number[] = [];
  const predicate = async (c: Plan): Promise<TrialFailure | null> => {
    seen.push(c.steps.length);
    return has(c, 3, 12) ? { invariant: 'ledger', step: 12 } : null;
  };
  const shrunk = await shrink(planOf(200), predicate);
  expect(shrunk.steps.map((s) => s.n)).toEqual([3, 12]);
  // After the first trial no candidate holds steps past 12.
  expect(seen.slice(1).every((size) => size <= 13)).toBe(true);
});

test('respects maxTrials: stops there with the smallest failing plan found so far', async () => {
  let calls = 0;
  const counting = async (c: Plan) => {
    calls += 1;
    return sevenAndThirtyOne(c);
  };
  const shrunk = await shrink(planOf(60), counting, { maxTrials: 12 });
  expect(calls).toBe(12);
  expect(has(shrunk, 7, 31)).toBe(true);
  expect(shrunk.steps.length).toBeLessThan(60);
  expect(await sevenAndThirtyOne(shrunk)).toEqual({ invariant: 'balances' });
});

test('deterministic: the same plan and answers give the same trials and the same result', async () => {
  const run = async () => {
    const sizes: number[] = [];
    const shrunk = await shrink(planOf(80, 9), async (c) => (has(c, 2, 50, 77) ? { invariant: 'x' } : null), { onTrial: (t) => sizes.push(t.size) });
    return { sizes, shrunk };
  };
  const first = await run();
  expect(first.shrunk.steps.map((s) => s.n)).toEqual([2, 50, 77]);
  expect(await run()).toEqual(first);
});

test('a plan that does not fail is refused, not shrunk', async () => {
  await expect(shrink(planOf(10), async () => null)).rejects.toThrow(NothingToShrinkError);
});

test('tries the failing step with what it references first, then with the time jumps: a long plan shrinks in few trials', async () => {
  // 0 creates merchant#0; 10 a charge (charge#3) of it; 20 a dispute (dispute#0) of that charge; 12 a
  // time jump (the charge succeeds); 30 submits evidence to dispute#0: fails iff all five are there.
  const steps: Step[] = Array.from({ length: 31 }, (_, n): Step => ({ n, kind: n % 4 === 0 ? 'time_jump' : 'repeat_request', params: { i: n } }));
  steps[0] = { n: 0, kind: 'create_merchant', params: { ref_index: 0 } };
  steps[10] = { n: 10, kind: 'sandbox_charge', refs: [{ kind: 'merchant', index: 0 }], params: { ref_index: 3, request_index: 5 } };
  steps[20] = { n: 20, kind: 'dispute', refs: [{ kind: 'charge', index: 3 }], params: { ref_index: 0, request_index: 9 } };
  steps[30] = { n: 30, kind: 'dispute_evidence', refs: [{ kind: 'dispute', index: 0 }], params: {} };
  const needs = async (c: Plan): Promise<TrialFailure | null> => (has(c, 0, 10, 12, 20, 30) ? { invariant: 'transitions', step: 30 } : null);
  const trials: ShrinkTrial[] = [];
  const shrunk = await shrink({ seed: 1, steps }, needs, { invariant: 'transitions', onTrial: (t) => trials.push(t) });
  expect(shrunk.steps.map((s) => s.n)).toEqual([0, 10, 12, 20, 30]);
  // The references alone (4 steps) pass; with the six time jumps (10 steps) they fail; ddmin goes on from 10, not 31.
  expect(trials.slice(0, 2).map((t) => [t.size, t.failed])).toEqual([[4, false], [10, true]]);
  expect(trials.length).toBeLessThan(25);
});
