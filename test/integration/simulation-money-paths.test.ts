/**
 * Issue 43's money paths as simulation steps (src/simulation/plan.ts moneyPath), each on a hand-made
 * plan on a fresh engine with every invariant, the partner-books one included, after every step:
 * - a live payout whose partner never answers (`never`: PENDING, no callback), its run terminated
 *   while it waits for the partner, then `payments restart` (terminate_run): the restarted run
 *   follows the same reference; nothing paid twice, nothing released;
 * - `merchants set --settlement-account` (settlement_account_change) of a merchant with a live
 *   balance, then a live settlement run inside the hold: skipped, nothing sent to the partner.
 */
import { runSession } from '../../src/simulation/session';
import type { Plan } from '../../src/simulation/types';

jest.setTimeout(120_000);

const NETWORK = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';

const PLAN: Plan = {
  seed: 4344,
  steps: [
    { n: 0, kind: 'create_merchant', params: { name: 'Sim 4344 #1', review_threshold: 100_000, verified: true, settlement_account: '001234567890', ref_index: 0 } },
    {
      n: 1, kind: 'live_charge', refs: [{ kind: 'merchant', index: 0 }],
      params: { amount: 50_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235678', outcome: null, idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a51', ref_index: 0, request_index: 0 },
    },
    { n: 2, kind: 'time_jump', params: { ms: 30_000 } },
    { n: 3, kind: 'partner_behaviour', params: { behaviour: 'never' } },
    {
      n: 4, kind: 'payout', refs: [{ kind: 'merchant', index: 0 }],
      params: { environment: 'live', amount: 2_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, bank_code: null, identifier: '233249876543', idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a52', ref_index: 0, request_index: 1 },
    },
    { n: 5, kind: 'time_jump', params: { ms: 60_000 } },
    { n: 6, kind: 'terminate_run', refs: [{ kind: 'payout', index: 0 }], params: { reason: 'simulation: terminate a live payout\'s run, then payments restart' } },
    { n: 7, kind: 'time_jump', params: { ms: 600_000 } },
    { n: 8, kind: 'partner_behaviour', params: { behaviour: 'normal' } },
    { n: 9, kind: 'settlement_account_change', refs: [{ kind: 'merchant', index: 0 }], params: { settlement_account: '001999999999', reason: 'simulation: the merchant\'s new bank account' } },
    { n: 10, kind: 'settlement_run', refs: [{ kind: 'merchant', index: 0 }], params: { environment: 'live', failed: false } },
  ],
};

test('terminate and restart of a live payout waiting on the partner, and a settlement account change before a live settlement run: every invariant holds after every step', async () => {
  const started = performance.now();
  const run = await runSession(PLAN);
  console.log(`simulation-money-paths: ${run.stepsRun} steps, ${run.failure ? `failed after step ${run.failure.step.n}` : 'no failure'} in ${((performance.now() - started) / 1000).toFixed(1)} s\n${run.trace.map((o) => `  ${o.n} ${o.kind}: ${o.result} ${o.detail}`).join('\n')}`);
  if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
  expect(run.stepsRun).toBe(PLAN.steps.length);
  const detail = (n: number) => run.trace.find((o) => o.n === n)!.detail;
  expect(detail(6)).toMatch(/: terminated; payments restart: done/);
  expect(detail(9)).toMatch(/changed settlement_account, live settlements held until /);
  expect(detail(10)).toMatch(/started 0, skipped 1/);
});

/**
 * Bursts (issue 44, steps/burst.ts): three refunds of all that is left of one sandbox charge at once
 * (one takes it, the others are refused), and one charge sent three times at once under one
 * Idempotency-Key (one charge). Every invariant after every step, the two for bursts among them.
 */
const BURST_PLAN: Plan = {
  seed: 4400,
  steps: [
    { n: 0, kind: 'create_merchant', params: { name: 'Sim 4400 #1', review_threshold: 100_000, verified: true, settlement_account: '001234567890', ref_index: 0 } },
    {
      n: 1, kind: 'sandbox_charge', refs: [{ kind: 'merchant', index: 0 }],
      params: { amount: 12_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235678', outcome: 'succeed', idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4401', ref_index: 0, request_index: 0 },
    },
    // Another charge's money in the balance: a refund is paid from what is available (the first charge's amount less its fee).
    {
      n: 2, kind: 'sandbox_charge', refs: [{ kind: 'merchant', index: 0 }],
      params: { amount: 50_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235670', outcome: 'succeed', idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4404', ref_index: 1, request_index: 2 },
    },
    { n: 3, kind: 'time_jump', params: { ms: 10_000 } },
    { n: 6, kind: 'burst', refs: [{ kind: 'charge', index: 0 }], params: { shape: 'refunds', count: 3, idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4402' } },
    {
      n: 7, kind: 'burst', refs: [{ kind: 'merchant', index: 0 }],
      params: { shape: 'same_key_charge', count: 3, amount: 5_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235679', outcome: 'succeed', idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4403' },
    },
    {
      n: 8, kind: 'burst', refs: [{ kind: 'merchant', index: 0 }],
      params: { shape: 'payouts', count: 3, environment: 'sandbox', amount: 100, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, bank_code: null, identifier: '233249876540', idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4405' },
    },
    { n: 9, kind: 'time_jump', params: { ms: 10_000 } },
  ],
};

test('bursts: three refunds of one charge at once, one charge three times at once under one key, three payouts racing the balance: one refund, one charge, one payout, every invariant', async () => {
  const run = await runSession(BURST_PLAN);
  console.log(`simulation-money-paths (bursts): ${run.trace.map((o) => `  ${o.n} ${o.kind}: ${o.result} ${o.detail}`).join('\n')}`);
  if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
  const detail = (n: number) => run.trace.find((o) => o.n === n)!.detail;
  expect(detail(6)).toMatch(/^3 refunds of txn_\S+ at once: 200 ×1, 422 amount_exceeds_refundable ×2$/);
  expect(detail(7)).toMatch(/^a charge 3 times at once under one key: (200 ×3|200 ×[12], 409 idempotency_key_in_use ×[12])$/);
  expect(detail(8)).toMatch(/^3 payouts of \d+ at once from \d+ available: 200 ×1, 422 insufficient_balance ×2; \d+ left$/);
});
