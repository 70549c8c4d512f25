/**
 * The simulation over seeds (issue 33, docs/simulation.md; system tier, issue 42: npm test runs
 * a fixed seed, test/system/simulation-short.test.ts). SIM_SWEEP_SEEDS seeds in a row (default 1),
 * the first SIM_SEED (`random`: drawn, printed first; unset: CI_SEED); each a 20-step plan on a fresh engine, every invariant
 * after every step. A failure names the seed, the step and the invariant with its lines, and the
 * command that runs it again (`npm run simulate -- --seed <seed> --steps 20`, which shrinks it and
 * writes a reproduction). 6 to 240 s a seed (a time jump of days costs most of a run).
 *
 * Each seed's database is a copy of one template migrated once for the file
 * (src/simulation/sim-database.ts `createSimTemplate`), as `npm run simulate -- --hours` does.
 */
import { randomInt } from 'node:crypto';
import { MAX_SEED } from '../../src/simulation/cli-options';
import { plan } from '../../src/simulation/plan';
import { describeFailure, runSession } from '../../src/simulation/session';
import { simTemplateForFile } from '../support/simulation-template';

/** Steps per seed. */
const STEPS = 20;

/**
 * The seed CI runs when SIM_SEED is unset: fixed, so CI's verdict is the commit's, not a draw's. A
 * random seed (`SIM_SEED=random`) can meet the simulator's open time-jump stall (the test server's
 * clock stops moving after a worker restart or a terminated run; docs/reliability.md, seeds 4503,
 * 4508 and 391435521): a 300 s timeout that says nothing about the engine. Exploring stays one word away.
 */
const CI_SEED = 4500;

function seedOf(env: string | undefined): number {
  if (env === undefined || env === '') return CI_SEED;
  if (env === 'random') return randomInt(1, 2 ** 31 - 1);
  if (!/^[0-9]{1,10}$/.test(env) || Number(env) >= 2 ** 31) throw new Error(`SIM_SEED must be a whole number from 0 to 2147483647, not "${env}"`);
  return Number(env);
}

function countOf(env: string | undefined): number {
  if (env === undefined || env === '') return 1;
  if (!/^[1-9][0-9]{0,2}$/.test(env)) throw new Error(`SIM_SWEEP_SEEDS must be a whole number from 1 to 999, not "${env}"`);
  return Number(env);
}

const FIRST = seedOf(process.env.SIM_SEED);
const SEEDS = Array.from({ length: countOf(process.env.SIM_SWEEP_SEEDS) }, (_, i) => ((FIRST - 1 + i) % MAX_SEED) + 1);
console.log(`simulation-sweep: seeds ${SEEDS.join(', ')}${process.env.SIM_SEED === 'random' ? ' (the first random)' : ''}, ${STEPS} steps each (again: SIM_SEED=${FIRST}${SEEDS.length > 1 ? ` SIM_SWEEP_SEEDS=${SEEDS.length}` : ''}, or npm run simulate -- --seed <seed> --steps ${STEPS})`);

const template = simTemplateForFile();

test.each(SEEDS)(`seed %d, ${STEPS} steps: no invariant fails`, async (seed) => {
  const result = await runSession(plan(seed, STEPS), { template: template() });
  if (result.failure) {
    throw new Error([...describeFailure(seed, result.failure), `again: SIM_SEED=${seed}, or npm run simulate -- --seed ${seed} --steps ${STEPS} (shrinks it and writes a reproduction)`].join('\n'));
  }
  expect(result.stepsRun).toBe(STEPS);
  console.log(`simulation-sweep: seed ${seed}: ${result.stepsRun} steps in ${(result.ms / 1000).toFixed(1)} s`);
}, 300_000);
