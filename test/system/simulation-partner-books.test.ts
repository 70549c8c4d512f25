/**
 * (System tier since issue 44; the same kind of defect, on charges and payouts, is caught by
 * test/system/simulation-catalogue-{books,edges}.test.ts `double-submit`, system tier too since stop 60.)
 * The eighth invariant, the partner's books as the oracle (issue 43; src/simulation/invariants/partner-books.ts):
 * a money bug that every other invariant misses is found by it, and a clean run passes it.
 *
 * The bug (src/simulation/defects/ `partner-pays-twice`, through the engine's own afterActivity
 * hook on railSubmit): once a live payout is accepted by the fake partner, the same transfer is sent
 * again under a new reference, straight to the partner. Our ledger, balances, transitions, webhooks
 * and workflows are exactly as for a clean payout: the partner alone knows it paid twice.
 *
 * One hand-made plan (a verified merchant, a live charge the partner approves, a live payout below
 * the review threshold to a plain number, a time jump), run twice on fresh engines: with the defect
 * the run stops after the payout's step with this invariant alone, naming the payout and both
 * references; without it, every step holds every invariant.
 */
import { partnerBooksAgree } from '../../src/simulation/invariants';
import { runSession } from '../../src/simulation/session';
import type { Plan } from '../../src/simulation/types';

jest.setTimeout(120_000);

const NETWORK = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';

const PLAN: Plan = {
  seed: 4343,
  steps: [
    { n: 0, kind: 'create_merchant', params: { name: 'Sim 4343 #1', review_threshold: 100_000, verified: true, settlement_account: '001234567890', ref_index: 0 } },
    {
      n: 1, kind: 'live_charge', refs: [{ kind: 'merchant', index: 0 }],
      params: { amount: 50_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235678', outcome: null, idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a41', ref_index: 0, request_index: 0 },
    },
    { n: 2, kind: 'time_jump', params: { ms: 30_000 } },
    {
      n: 3, kind: 'payout', refs: [{ kind: 'merchant', index: 0 }],
      params: { environment: 'live', amount: 2_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, bank_code: null, identifier: '233249876543', idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a42', ref_index: 0, request_index: 1 },
    },
    { n: 4, kind: 'time_jump', params: { ms: 60_000 } },
  ],
};

test('a live payout the partner pays twice (injected): only the partner-books invariant fails, naming the payout and both references', async () => {
  const started = performance.now();
  const run = await runSession(PLAN, { defect: 'partner-pays-twice' });
  console.log(`simulation-partner-books (defect): ${run.stepsRun} steps, ${run.failure ? `failed after step ${run.failure.step.n}` : 'no failure'} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const outcome of run.trace) console.log(`  ${outcome.n} ${outcome.kind}: ${outcome.result} ${outcome.detail}`);
  const payoutId = run.trace.find((o) => o.kind === 'payout')?.created?.[0]?.id;
  expect(payoutId).toMatch(/^po_/);
  expect(run.failure).not.toBeNull();
  const failure = run.failure!;
  // Every step before the payout held every invariant (the run stops at its first failing step).
  expect(failure.step.n).toBeGreaterThanOrEqual(3);
  // The seven others pass: the partner-books invariant is the only one broken.
  expect(failure.violations.map((v) => v.invariant)).toEqual([partnerBooksAgree.name]);
  const lines = failure.violations[0]!.lines;
  console.log(lines.join('\n'));
  expect(lines.length).toBeGreaterThan(0);
  const paidTwice = lines.find((l) => l.includes(payoutId!) && l.includes('the partner paid it 2 times'));
  expect(paidTwice).toBeDefined();
  // It names the difference: our status and amount, and the two references the partner paid.
  expect(paidTwice).toMatch(/payout po_\S+ \(ours: \w+ 2000 GHS; partner: SUCCESSFUL 20(\.00)? GHS under [0-9a-f-]{36}\)/);
  expect(paidTwice!.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)!.length).toBeGreaterThanOrEqual(3);
});

test('the same plan without the defect: every invariant, the partner-books one included, holds after every step', async () => {
  const started = performance.now();
  const run = await runSession(PLAN);
  console.log(`simulation-partner-books (clean): ${run.stepsRun} steps, ${run.failure ? `failed after step ${run.failure.step.n}` : 'no failure'} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const outcome of run.trace) console.log(`  ${outcome.n} ${outcome.kind}: ${outcome.result} ${outcome.detail}`);
  if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
  expect(run.stepsRun).toBe(PLAN.steps.length);
  // The plan reached the partner: the payout was created live (a clean pass over nothing would prove nothing).
  expect(run.trace.find((o) => o.kind === 'payout')?.created?.[0]?.id).toMatch(/^po_/);
});
