/**
 * Issue 43's findings as planted defects (src/simulation/defects/), each with a short hand-written
 * plan: with the defect on, the simulator reports the partner-books invariant broken; without it the
 * same plan holds every invariant after every step (the failure is the defect's, not the plan's).
 * - `restart-refusal-final` (finding 1): a live payout the partner never answers and whose copies it
 *   refuses with a 400 (fake `0014`), its run terminated and `payments restart`ed: the restarted
 *   run's first submission is refused, taken as final, the payout fails while the partner still says
 *   PENDING.
 * - `retry-after-late-success` (finding 4): a live batch the partner refuses (FAILED, account ending
 *   0001), the merchant's account changed, the hold waited out, then the partner pays the failed batch
 *   late and `settlements retry` runs: the balance is sent again while the late SUCCESSFUL is on record.
 * - `late-return-refusal-final` (finding 2): a late return's retried submission refused with a 400,
 *   taken as final: the return recorded failed while the partner pays the first copy.
 * - `resolution-evidence-final` (finding 3): `charges resolve --as succeeded` with evidence while the
 *   partner says PENDING: the evidence taken for the partner's SUCCESSFUL credits the merchant.
 * - `old-shape-deadline` (finding 5): a live charge the partner never answers, past its expires_at:
 *   the old shape's deadline ends it while the partner may still pay.
 * And the new money-path steps on live state, clean (LIVE_STEPS_PLAN).
 * docs/reliability.md "Issue 43's findings as planted defects" has the commands and wall times.
 * Each session runs in a process of its own (test/support/session-in-child.ts): sessions in one
 * process hung after earlier ones.
 */
import { partnerBooksAgree } from '../../src/simulation/invariants';
import type { DefectName } from '../../src/simulation/defects';
import type { Plan, RunResult } from '../../src/simulation/types';
import { runSessionInChild } from '../support/session-in-child';

jest.setTimeout(120_000);

const NETWORK = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';
const merchant = (seed: number, account: string) => ({ n: 0, kind: 'create_merchant' as const, params: { name: `Sim ${seed} #1`, review_threshold: 100_000, verified: true, settlement_account: account, ref_index: 0 } });
const liveCharge = (n: number, key: string) => ({
  n, kind: 'live_charge' as const, refs: [{ kind: 'merchant' as const, index: 0 }],
  params: { amount: 50_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235678', outcome: null, idempotency_key: key, ref_index: 0, request_index: 0 },
});

/** Finding 1: a restart of a live payout whose partner is silent and refuses copies with a 400. */
export const RESTART_REFUSAL_PLAN: Plan = {
  seed: 4361,
  steps: [
    merchant(4361, '001234567890'),
    liveCharge(1, '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4361'),
    { n: 2, kind: 'time_jump', params: { ms: 30_000 } },
    { n: 3, kind: 'partner_behaviour', params: { behaviour: 'pending_duplicate_refused' } },
    {
      n: 4, kind: 'payout', refs: [{ kind: 'merchant', index: 0 }],
      params: { environment: 'live', amount: 2_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, bank_code: null, identifier: '233249876543', idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4362', ref_index: 0, request_index: 1 },
    },
    { n: 5, kind: 'partner_behaviour', params: { behaviour: 'normal' } },
    { n: 6, kind: 'time_jump', params: { ms: 60_000 } },
    { n: 7, kind: 'terminate_run', refs: [{ kind: 'payout', index: 0 }], params: { reason: 'simulation: terminate a live payout\'s run, then payments restart' } },
  ],
};

/** Finding 4: a settlement retry after the partner paid the failed batch late. */
export const RETRY_AFTER_LATE_SUCCESS_PLAN: Plan = {
  seed: 4364,
  steps: [
    // An account ending 0001: the fake partner refuses the transfer (FAILED) after its approval delay.
    merchant(4364, '001234560001'),
    liveCharge(1, '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4364'),
    { n: 2, kind: 'time_jump', params: { ms: 30_000 } },
    { n: 3, kind: 'settlement_run', refs: [{ kind: 'merchant', index: 0 }], params: { environment: 'live', failed: false } },
    { n: 4, kind: 'settlement_account_change', refs: [{ kind: 'merchant', index: 0 }], params: { settlement_account: '001999999999', reason: 'simulation: the merchant\'s new bank account' } },
    { n: 5, kind: 'time_jump', params: { ms: 25 * 3_600_000 } },
    { n: 6, kind: 'settlement_retry_late', refs: [{ kind: 'merchant', index: 0 }], params: { reason: 'simulation: settlements retry after the partner paid the batch late' } },
  ],
};

/**
 * The new steps on live state, no defect: a live batch the partner never answers (account ending
 * 0004) terminated and restarted, a live charge the partner never answers terminated and restarted,
 * then reset (which the time-skipping server refuses). Every invariant after every step.
 */
export const LIVE_STEPS_PLAN: Plan = {
  seed: 4366,
  steps: [
    merchant(4366, '001234560004'),
    liveCharge(1, '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4366'),
    { n: 2, kind: 'time_jump', params: { ms: 30_000 } },
    { n: 3, kind: 'settlement_run', refs: [{ kind: 'merchant', index: 0 }], params: { environment: 'live', failed: false } },
    { n: 4, kind: 'restart_settlement', refs: [{ kind: 'merchant', index: 0 }], params: { reason: 'simulation: terminate a live settlement batch\'s run, then payments restart' } },
    { n: 5, kind: 'partner_behaviour', params: { behaviour: 'never' } },
    { ...liveCharge(6, '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4367'), params: { ...liveCharge(6, '').params, idempotency_key: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4367', ref_index: 1, request_index: 1 } },
    { n: 7, kind: 'partner_behaviour', params: { behaviour: 'normal' } },
    { n: 8, kind: 'time_jump', params: { ms: 60_000 } },
    { n: 9, kind: 'terminate_run', refs: [{ kind: 'charge', index: 1 }], params: { reason: 'simulation: terminate a live charge\'s run, then payments restart' } },
    { n: 10, kind: 'reset_run', refs: [{ kind: 'charge', index: 1 }], params: { reapply: true } },
  ],
};

/**
 * Finding 2: the partner refuses a live charge (FAILED: `refuse`, its fake `0001`), then pays it after all
 * (partner_pays_late: its record corrected, the review opened records the late money); the return of
 * that money is submitted with its first answer lost (fail_activity after it ran) to a partner that
 * refuses copies with a 400 (0013): the retry's refusal, taken as final, records the return failed
 * while the partner pays the first copy.
 */
export const LATE_RETURN_REFUSED_PLAN: Plan = {
  seed: 4368,
  steps: [
    merchant(4368, '001234567890'),
    { n: 1, kind: 'partner_behaviour', params: { behaviour: 'refuse' } },
    { ...liveCharge(2, '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4368') },
    { n: 3, kind: 'partner_behaviour', params: { behaviour: 'normal' } },
    { n: 4, kind: 'time_jump', params: { ms: 30_000 } },
    { n: 5, kind: 'partner_pays_late', refs: [{ kind: 'charge', index: 0 }], params: { reason: 'simulation: the partner says it paid the refused charge after all' } },
    { n: 6, kind: 'fail_activity', params: { activity: 'submitLateReturn', times: 1, when: 'after' } },
    { n: 7, kind: 'late_return_refused', refs: [{ kind: 'charge', index: 0 }], params: { reason: 'simulation: return the late money to the payer' } },
    { n: 8, kind: 'time_jump', params: { ms: 60_000 } },
  ],
};

/** A merchant and a live charge the partner never answers (`never`, its fake `0004`), the behaviour back to normal after: steps 0-3. */
const silentLiveCharge = (seed: number, key: string): Plan['steps'] => [
  merchant(seed, '001234567890'),
  { n: 1, kind: 'partner_behaviour', params: { behaviour: 'never' } },
  liveCharge(2, key),
  { n: 3, kind: 'partner_behaviour', params: { behaviour: 'normal' } },
];

/**
 * Finding 3: a live charge the partner never answers (`never`, its fake `0004`), then, a minute on,
 * `charges resolve --as succeeded` with evidence while the partner still says PENDING: the evidence,
 * taken for the partner's word, credits the merchant.
 */
export const RESOLVE_WHILE_PENDING_PLAN: Plan = {
  seed: 4370,
  steps: [
    ...silentLiveCharge(4370, '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4370'),
    { n: 4, kind: 'time_jump', params: { ms: 60_000 } },
    { n: 5, kind: 'operator_action', refs: [{ kind: 'charge', index: 0 }], params: { action: 'charges resolve', reason: 'simulation: charges resolve of a live charge the partner still has PENDING', as: 'succeeded', failure_class: null } },
  ],
};

/**
 * Finding 5: a live charge the partner never answers (`never`), then 16 minutes, past its
 * `expires_at` (15 minutes): the old shape's deadline ends it without the partner's word.
 */
export const OLD_SHAPE_DEADLINE_PLAN: Plan = {
  seed: 4372,
  steps: [
    ...silentLiveCharge(4372, '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f4372'),
    { n: 4, kind: 'time_jump', params: { ms: 16 * 60_000 } },
  ],
};

const CASES: Array<{ defect: DefectName; plan: Plan; failsAt: number }> = [
  { defect: 'restart-refusal-final', plan: RESTART_REFUSAL_PLAN, failsAt: 7 },
  { defect: 'retry-after-late-success', plan: RETRY_AFTER_LATE_SUCCESS_PLAN, failsAt: 6 },
  { defect: 'late-return-refusal-final', plan: LATE_RETURN_REFUSED_PLAN, failsAt: 7 },
  { defect: 'resolution-evidence-final', plan: RESOLVE_WHILE_PENDING_PLAN, failsAt: 5 },
  { defect: 'old-shape-deadline', plan: OLD_SHAPE_DEADLINE_PLAN, failsAt: 4 },
];

/** Each step and each slow settle as it happens (a hang shows where it is before jest's timeout). */

function report(name: string, run: RunResult, started: number): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const failure = run.failure ? `failed after step ${run.failure.step.n}:\n    ${run.failure.violations.map((v) => `${v.invariant}: ${v.lines.join(' | ')}`).join('\n    ')}` : 'no failure';
  console.log(`simulation-money-defects: ${name}: ${run.stepsRun} steps, ${failure} in ${seconds} s\n${run.trace.map((o) => `  ${o.n} ${o.kind}: ${o.result} ${o.detail}`).join('\n')}`);
}

describe.each(CASES)('defect $defect', ({ defect, plan, failsAt }) => {
  test(`its plan breaks the partner-books invariant at step ${failsAt} with the defect`, async () => {
    const started = performance.now();
    const run = await runSessionInChild(plan, { defect, name: `simulation-money-defects: ${defect} on` });
    report(`${defect} on`, run, started);
    expect(run.failure?.step.n).toBe(failsAt);
    const books = run.failure!.violations.find((v) => v.invariant === partnerBooksAgree.name);
    expect(books?.lines.length).toBeGreaterThan(0);
  });

  test('the same plan holds every invariant without it', async () => {
    const started = performance.now();
    const run = await runSessionInChild(plan, { name: `simulation-money-defects: ${defect} off` });
    report(`${defect} off`, run, started);
    if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
    expect(run.stepsRun).toBe(plan.steps.length);
  });
});

// Last: its batch and charge the partner never answers are the longest-lived of the file's sessions.
test('the new money-path steps on live state (a batch and a charge the partner never answers, terminated and restarted; a reset): every invariant holds', async () => {
  const started = performance.now();
  const run = await runSessionInChild(LIVE_STEPS_PLAN, { name: 'simulation-money-defects: live steps' });
  report('live steps', run, started);
  if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
  const detail = (n: number) => run.trace.find((o) => o.n === n)!.detail;
  expect(detail(4)).toMatch(/^stl_\S+: terminated; payments restart: done/);
  expect(detail(9)).toMatch(/^txn_\S+: terminated; payments restart: done/);
  expect(detail(10)).toMatch(/reset refused: 12 UNIMPLEMENTED/);
});
