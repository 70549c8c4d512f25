/**
 * The burst `callback_race` (src/simulation/steps/callback-race.ts, issue 44): a live charge the
 * partner keeps PENDING, then its SUCCESSFUL with the callback, `charges resolve --as <either>` and
 * `payments review-open`, at once. Whichever lands first, every invariant holds after it (the
 * partner's books above all: no charge failed here and SUCCESSFUL there without its late answer or a
 * review naming it). Each session in a process of its own.
 */
import type { Plan } from '../../src/simulation/types';
import { runSessionInChild } from '../support/session-in-child';

jest.setTimeout(120_000);

const NETWORK = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';

const racePlan = (seed: number, as: 'succeeded' | 'failed'): Plan => ({
  seed,
  steps: [
    { n: 0, kind: 'create_merchant', params: { name: `Sim ${seed} #1`, review_threshold: 100_000, verified: true, settlement_account: '001234567890', ref_index: 0 } },
    {
      n: 1, kind: 'burst', refs: [{ kind: 'merchant', index: 0 }],
      params: { shape: 'callback_race', count: 3, amount: 25_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235678', outcome: null, as, idempotency_key: `8b2e3d4c-5f6a-4b7c-8d9e-0f1a2b3c${String(seed).padStart(4, '0')}` },
    },
    { n: 2, kind: 'time_jump', params: { ms: 60_000 } },
  ],
});

test.each([['succeeded', 4411] as const, ['failed', 4412] as const])('a callback racing charges resolve --as %s and a review: every invariant holds', async (as, seed) => {
  const run = await runSessionInChild(racePlan(seed, as), { name: `simulation-callback-race: ${as}` });
  console.log(`simulation-callback-race (${as}):\n${run.trace.map((o) => `  ${o.n} ${o.kind}: ${o.result} ${o.detail}`).join('\n')}`);
  if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
  expect(run.stepsRun).toBe(3);
  expect(run.trace[1]!.detail).toMatch(/then at once: the partner's SUCCESSFUL with its callback; charges resolve --as/);
});
