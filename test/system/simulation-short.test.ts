/**
 * The short deterministic simulation in npm test (issue 33, docs/simulation.md): a fixed number of
 * steps of a FIXED seed (issue 42: the merge gate draws no seed; a failure is the same on the next
 * run and on anyone's machine), on a fresh engine, every invariant after every step. The seed is
 * printed first; SIM_SEED=<seed> runs another one in its place, as does
 * `npm run simulate -- --seed <seed> --steps 20`. A failure names the seed, the step and the invariant
 * with its lines. Random seeds, sweeps and shrinking run in the system tier (test/system/simulation-*).
 *
 * The run also shows the steps reach the engine (what test/integration/simulation-steps.test.ts
 * checked on its first run; its second run, the same trace again, is test/system/simulation-determinism.test.ts):
 * every step done or skipped with why, the plan opening with a merchant and an endpoint, charges
 * created through the API (the requests' recorded answers are checked there).
 */
import { plan } from '../../src/simulation/plan';
import { describeFailure, runSession } from '../../src/simulation/session';
import type { StepOutcome } from '../../src/simulation/types';

/** Steps per run. */
const STEPS = 20;

/**
 * The seed: 16 of the 22 step kinds in its 20 steps (restart_worker, settlement_run, a live charge,
 * refunds, disputes with evidence, a partner statement, a failing activity, operator actions among
 * them) and time jumps of at most 20 minutes, so no jump of days makes the run minutes long. Chosen
 * from plan() alone (pure): a change to plan() that draws other steps for it shows in the kinds below.
 */
const FIXED_SEED = 1631;

function seedOf(env: string | undefined): number {
  if (env === undefined || env === '') return FIXED_SEED;
  if (!/^[0-9]{1,10}$/.test(env) || Number(env) >= 2 ** 31) throw new Error(`SIM_SEED must be a whole number from 0 to 2147483647, not "${env}"`);
  return Number(env);
}

const SEED = seedOf(process.env.SIM_SEED);
console.log(`simulation-short: seed ${SEED}${SEED === FIXED_SEED ? ' (the fixed seed)' : ' (SIM_SEED)'}, ${STEPS} steps (again: SIM_SEED=${SEED}, or npm run simulate -- --seed ${SEED} --steps ${STEPS})`);

test(`seed ${SEED}, ${STEPS} steps: no invariant fails, and every step reaches the engine`, async () => {
  const thePlan = plan(SEED, STEPS);
  if (SEED === FIXED_SEED) expect(new Set(thePlan.steps.map((s) => s.kind)).size).toBe(16);
  const outcomes: StepOutcome[] = [];
  const result = await runSession(thePlan, { onStep: (o) => outcomes.push(o) });
  if (result.failure) {
    throw new Error([...describeFailure(SEED, result.failure), `again: SIM_SEED=${SEED}, or npm run simulate -- --seed ${SEED} --steps ${STEPS} (shrinks it and writes a reproduction)`].join('\n'));
  }
  expect(result.stepsRun).toBe(STEPS);
  for (const outcome of result.trace) {
    expect(['done', 'skipped']).toContain(outcome.result);
    expect(outcome.detail.length).toBeGreaterThan(0);
  }
  expect(outcomes.map((o) => o.n)).toEqual(thePlan.steps.map((s) => s.n));
  // The plan opens with a merchant and an endpoint, both created.
  expect(result.trace[0]!.created?.[0]?.kind).toBe('merchant');
  expect(result.trace[1]!.created?.[0]?.kind).toBe('endpoint');
  // Steps reach the engine: charges are created through the API.
  expect(result.trace.flatMap((o) => o.created ?? []).some((c) => c.kind === 'charge')).toBe(true);
  console.log(`simulation-short: seed ${SEED}: ${result.stepsRun} steps in ${(result.ms / 1000).toFixed(1)} s (${result.trace.filter((o) => o.result === 'skipped').length} skipped)`);
}, 300_000);
