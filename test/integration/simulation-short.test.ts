/**
 * The short deterministic simulation in npm test (issue 33, docs/simulation.md): a fixed number of
 * steps of a random seed (printed first; SIM_SEED=<seed> runs the same one again, as does
 * `npm run simulate -- --seed <seed> --steps <SIM_SHORT_STEPS>`), on a fresh engine, every invariant
 * after every step. A failure names the seed, the step and the invariant with its lines.
 */
import { randomInt } from 'node:crypto';
import { plan } from '../../src/simulation/plan';
import { describeFailure, runSession } from '../../src/simulation/session';

/** Steps per run: about a minute here (a time jump of days costs up to 3 minutes of it; docs/simulation.md, "Where it runs"). */
const STEPS = 20;

function seedOf(env: string | undefined): number {
  if (env === undefined || env === '') return randomInt(1, 2 ** 31 - 1);
  if (!/^[0-9]{1,10}$/.test(env) || Number(env) >= 2 ** 31) throw new Error(`SIM_SEED must be a whole number from 0 to 2147483647, not "${env}"`);
  return Number(env);
}

const SEED = seedOf(process.env.SIM_SEED);
console.log(`simulation-short: seed ${SEED}, ${STEPS} steps (again: SIM_SEED=${SEED}, or npm run simulate -- --seed ${SEED} --steps ${STEPS})`);

test(`seed ${SEED}, ${STEPS} steps: no invariant fails`, async () => {
  const result = await runSession(plan(SEED, STEPS));
  if (result.failure) {
    throw new Error([...describeFailure(SEED, result.failure), `again: SIM_SEED=${SEED}, or npm run simulate -- --seed ${SEED} --steps ${STEPS} (shrinks it and writes a reproduction)`].join('\n'));
  }
  expect(result.stepsRun).toBe(STEPS);
  console.log(`simulation-short: seed ${SEED}: ${result.stepsRun} steps in ${(result.ms / 1000).toFixed(1)} s`);
}, 300_000);
