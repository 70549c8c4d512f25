/**
 * The burst `slow_partner_race` (src/simulation/steps/slow-partner-race.ts, issue 44: "a slow partner
 * racing an operator"): a live payment whose submission the partner answers slowly (`0007`: the
 * reference kept at once, the 202 only seconds later, past the adapter's timeout), and an operator
 * acting while it hangs: `charges resolve` of a charge, or a payout's run terminated and restarted.
 * Every invariant holds after it (the partner's books above all: nothing paid twice, nothing ended
 * against the partner's word). Each session in a process of its own.
 */
import type { Plan, Step } from '../../src/simulation/types';
import { runSessionInChild } from '../support/session-in-child';

jest.setTimeout(150_000);

const NETWORK = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';

const race = (n: number, seed: number, target: 'charge' | 'payout', delayMs: number, as: 'succeeded' | 'failed'): Step => ({
  n, kind: 'burst', refs: [{ kind: 'merchant', index: 0 }],
  params: { shape: 'slow_partner_race', count: 1, target, amount: 2_000, currency: 'GHS', momo_network_id: NETWORK, phone_prefix: 123, delay_ms: delayMs, as, outcome: null, idempotency_key: `7c1d2e3f-4a5b-4c6d-8e9f-${String(seed).padStart(4, '0')}0000000${n}` },
});

/** A merchant with live money (a live charge the partner pays), then the race, then a minute. */
const racePlan = (seed: number, target: 'charge' | 'payout', delayMs: number, as: 'succeeded' | 'failed'): Plan => ({
  seed,
  steps: [
    { n: 0, kind: 'create_merchant', params: { name: `Sim ${seed} #1`, review_threshold: 10_000_000, verified: true, settlement_account: '001234567890', ref_index: 0 } },
    { n: 1, kind: 'live_charge', refs: [{ kind: 'merchant', index: 0 }], params: { amount: 50_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235678', outcome: null, idempotency_key: `7c1d2e3f-4a5b-4c6d-8e9f-${String(seed).padStart(4, '0')}00000001`, ref_index: 0, request_index: 0 } },
    { n: 2, kind: 'time_jump', params: { ms: 30_000 } },
    race(3, seed, target, delayMs, as),
    { n: 4, kind: 'time_jump', params: { ms: 60_000 } },
  ],
});

test.each([
  ['charge', 0, 'failed', 4421] as const,
  ['charge', 1_500, 'succeeded', 4422] as const,
  ['payout', 50, 'failed', 4423] as const,
  ['payout', 1_500, 'failed', 4424] as const,
])('a slow partner racing the operator: a %s, %d ms after its create', async (target, delayMs, as, seed) => {
  const run = await runSessionInChild(racePlan(seed, target, delayMs, as), { name: `simulation-slow-partner-race: ${target} ${delayMs} ms` });
  console.log(`simulation-slow-partner-race (${target}, ${delayMs} ms):\n${run.trace.map((o) => `  ${o.n} ${o.kind}: ${o.result} ${o.detail}`).join('\n')}`);
  if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
  expect(run.stepsRun).toBe(5);
  expect(run.trace[3]!.detail).toMatch(target === 'charge' ? /to a slow partner; \d+ ms later charges resolve --as (succeeded|failed): / : /to a slow partner; \d+ ms later its run terminated, payments restart: done/);
});
