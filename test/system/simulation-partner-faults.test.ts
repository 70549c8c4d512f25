/**
 * Issue 46's partner faults in the simulator (src/simulation/steps/partner-faults.ts): `partner_down`
 * (the partner's calls fail as never reached) and `partner_declining` (the fake's setDeclining), each
 * for its step's span, with live mobile-money payments made while it is in force. The simulation routes
 * mobile money `momo|aggregator` (engine.ts SIM_RAIL_ROUTES): with MoMo down or declining, each new
 * payment fails over to the aggregator at its first submission; with the aggregator down, they go to
 * MoMo as always. Every invariant holds after each step, the partner-books invariant above all (every
 * reference of a payment, rail_attempts included, read at both partners: paid at most once, nothing left
 * by an attempt that failed over). Each session in a process of its own.
 */
import type { Plan, Step } from '../../src/simulation/types';
import { runSessionInChild } from '../support/session-in-child';

jest.setTimeout(150_000);

const NETWORK = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';
const key = (seed: number, n: number, i = 0) => `7c1d2e3f-4a5b-4c6d-8e9f-${String(seed).padStart(4, '0')}${String(n).padStart(4, '0')}000${i}`;

const fault = (n: number, seed: number, kind: 'partner_down' | 'partner_declining', partner: 'momo' | 'aggregator', target: 'charge' | 'payout', count: number): Step => ({
  n, kind, refs: [{ kind: 'merchant', index: 0 }],
  params: { partner, target, amount: 1_500, momo_network_id: NETWORK, phone_prefix: 123, phone_suffix: 1_234, idempotency_keys: Array.from({ length: count }, (_, i) => key(seed, n, i)).join(',') },
});

/** A merchant with live money (a live charge the partner pays), then the fault's step, then a minute. */
const faultPlan = (seed: number, kind: 'partner_down' | 'partner_declining', partner: 'momo' | 'aggregator', target: 'charge' | 'payout'): Plan => ({
  seed,
  steps: [
    { n: 0, kind: 'create_merchant', params: { name: `Sim ${seed} #1`, review_threshold: 10_000_000, verified: true, settlement_account: '001234567890', ref_index: 0 } },
    { n: 1, kind: 'live_charge', refs: [{ kind: 'merchant', index: 0 }], params: { amount: 50_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235678', outcome: null, idempotency_key: key(seed, 1), ref_index: 0, request_index: 0 } },
    { n: 2, kind: 'time_jump', params: { ms: 30_000 } },
    fault(3, seed, kind, partner, target, 2),
    { n: 4, kind: 'time_jump', params: { ms: 60_000 } },
  ],
});

test.each([
  ['partner_down', 'momo', 'charge', 4461, /at aggregator \(attempts: momo not_reached → aggregator current\)/] as const,
  ['partner_declining', 'momo', 'payout', 4462, /at aggregator \(attempts: momo refused → aggregator current\)/] as const,
  ['partner_down', 'aggregator', 'charge', 4463, /succeeded at momo/] as const,
])('%s (%s) while %ss are made', async (kind, partner, target, seed, where) => {
  const run = await runSessionInChild(faultPlan(seed, kind, partner, target), { name: `simulation-partner-faults: ${kind} ${partner}` });
  console.log(`simulation-partner-faults (${kind} ${partner}, ${target}s):\n${run.trace.map((o) => `  ${o.n} ${o.kind}: ${o.result} ${o.detail}`).join('\n')}`);
  if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
  expect(run.stepsRun).toBe(5);
  expect(run.trace[3]!.detail).toMatch(where);
});
