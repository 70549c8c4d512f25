import { PAYMENT_QUEUES } from '../support/harness';
import { paymentReviewWorkflowId } from '../../src/domain/payment-review';
import { findLateAnswer } from '../../src/persistence/partner/late-answer-store';
import { oldestUnpaidReturnAgeSeconds } from '../../src/persistence/partner/late-return-by-hand';
import { ourPaymentsFor } from '../../src/persistence/reconcile/our-payments';
import { matchStatement } from '../../src/reconcile/match';
import type { FakePartner } from '../../src/rail/fake-partner';
import { RailUnavailable } from '../../src/rail/partner-rail';
import { ledgerCheck } from '../../src/services/ledger-check';
import { paymentReviewQuery } from '../../workflows/payment-review-messages';
import { balanceRows } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { runCli } from '../support/run-cli';
import { until } from '../support/webhook-fixtures';

/**
 * Issue 43, finding 2, on the real stack: late money of a live charge returned to a payer whose
 * partner validates before it de-duplicates (fake `0013`: a second submission of a reference answers
 * 400). The return's first submission reaches the partner but its answer is lost; the retry is
 * refused. The refusal is checked against the partner's status (PENDING: a duplicate), so the return
 * is not recorded failed (on 83c79c5 it was, and the operator was told to send it by hand: the payer
 * paid twice); it is followed to the partner's SUCCESSFUL, paid once; the partner's callback for the
 * return's reference wakes the review (on 83c79c5: `unknown_reference`), and the statement's line for
 * it matches the charge (on 83c79c5: `missing_here`).
 */

let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;
let m: TestMerchant;
/** Return transfers whose first answer was lost (the partner kept them). */
const lost = new Set<string>();

beforeAll(async () => {
  partner = await startPartnerHarness({
    queues: PAYMENT_QUEUES,
    timeoutMs: 1_000,
    // Nothing ends by itself: the test says when the partner decides.
    fake: { approveAfterMs: 30 * 60_000 },
    wrapRail: (rail) => ({
      status: (product, referenceId) => rail.status(product, referenceId),
      async submit(product, request) {
        // A payee ending in 0020: this partner refuses the return outright (and keeps nothing).
        if (product === 'disbursement' && request.party.partyId.endsWith('0020')) return { kind: 'refused', reason: 'PAYEE_NOT_FOUND', failureClass: 'invalid_recipient' };
        const answer = await rail.submit(product, request);
        if (product === 'disbursement' && request.externalId.endsWith('-return') && !lost.has(request.referenceId)) {
          lost.add(request.referenceId);
          throw new RailUnavailable('test: the answer to the return transfer was lost on the way back');
        }
        return answer;
      },
    }),
  });
  ({ h, fake } = partner);
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await partner?.close(); // runs `ledger check` over the whole database first
});

async function cliJson(...args: string[]): Promise<any> {
  const r = await runCli(h.taskQueue, ...args);
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  return JSON.parse(r.stdout);
}

/** A live charge the partner FAILED and then said SUCCESSFUL for: late money, its review waiting for settle-late. */
async function lateMoneyCharge(payer: string): Promise<{ id: string; review: ReturnType<Harness['temporal']['client']['workflow']['getHandle']> }> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: payer, name: 'Kofi Boateng' }, reference: `late-return-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id: string = res.json.id;
  const ref = await until('the charge submitted to the partner', async () => {
    const rows = await h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [id]);
    return rows[0] && fake.transaction('collection', rows[0].reference_id) ? rows[0].reference_id : undefined;
  });
  expect(fake.settle('collection', ref, { status: 'FAILED', reason: 'APPROVAL_REJECTED' })).toBe(true);
  await until("the charge failed on the partner's FAILED", async () => (await h.request('live', 'GET', `/v1/charges/${id}`, { key: m.liveKey })).json.status === 'failed');
  expect(fake.settle('collection', ref, { status: 'SUCCESSFUL' })).toBe(true);
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');
  return { id, review };
}

test('a return the partner refuses (it never kept it) is failed, and settled by hand with the evidence: payments settle-return, audited', async () => {
  const { id, review } = await lateMoneyCharge('233240000020');
  await cliJson('payments', 'settle-late', id, '--action', 'return', '--reason', 'merchant declined the late payment', '--operator', 'ops:kojo');
  expect(await review.result()).toMatchObject({ phase: 'settled', settledAction: 'return', needsAttention: true });
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ return_status: 'failed' });
  const before = await balanceRows(h, m.id, 'GHS', 'live');
  expect(before.returns_in_transit).toBeGreaterThan(0);

  // A failed return counts as not paid (the gauge of alert PaymentsReturnNotPaid): made two days old, it is at least that.
  await h.orm.em.getConnection().execute(`update late_answers set settled_at = settled_at - interval '2 days' where payment_id = ?`, [id]);
  expect(await oldestUnpaidReturnAgeSeconds(h.orm)).toBeGreaterThanOrEqual(2 * 86_400);
  // The review ended with NeedsAttention on: payments stuck lists it, naming the command.
  const stuck = async () => (await cliJson('payments', 'stuck', '--env', 'live', '--query', `WorkflowId = '${paymentReviewWorkflowId(id)}'`)).data.filter((e: { id: string }) => e.id === paymentReviewWorkflowId(id));
  expect(await stuck()).toEqual([expect.objectContaining({ needs_attention: true, reason: expect.stringContaining(`payments settle-return ${id}`) })]);

  const noEvidence = await runCli(h.taskQueue, 'payments', 'settle-return', id, '--reason', 'sent by bank transfer', '--operator', 'ops:kojo');
  expect(noEvidence.code).toBe(1);
  expect(noEvidence.stderr).toContain('--evidence is required');
  const settled = await cliJson('payments', 'settle-return', id, '--evidence', 'GCB-TRF-778812', '--reason', 'returned by bank transfer', '--operator', 'ops:kojo');
  expect(settled).toMatchObject({ paymentId: id, return_status: 'succeeded', evidence: 'GCB-TRF-778812' });
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ return_status: 'succeeded' });
  expect((await balanceRows(h, m.id, 'GHS', 'live')).returns_in_transit).toBe(0);
  const audit = await cliJson('audit', 'list', '--payment', id);
  expect(audit.data).toContainEqual(
    expect.objectContaining({ action: 'payment.settle_return', operator: 'ops:kojo', reason: 'returned by bank transfer', state_after: expect.objectContaining({ return_status: 'succeeded', evidence: 'GCB-TRF-778812' }) }),
  );
  // Settled by hand: the closed review no longer waits for anyone.
  expect(await stuck()).toEqual([]);
  // Opened again (audited): the new run finds the return ended and settled, and ends without attention.
  const reopened = await cliJson('payments', 'review-open', id, '--reason', 'check the return once more', '--operator', 'ops:ama');
  expect(reopened).toMatchObject({ paymentId: id, review: paymentReviewWorkflowId(id), before: 'COMPLETED', reopened: true });
  expect(await h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id)).result()).toMatchObject({ phase: 'settled', settledAction: 'return', needsAttention: false });
  expect((await cliJson('audit', 'list', '--payment', id)).data).toContainEqual(
    expect.objectContaining({ action: 'payment.review_open', operator: 'ops:ama', reason: 'check the return once more', state_before: expect.objectContaining({ review: 'COMPLETED' }) }),
  );
  const sandbox = await runCli(h.taskQueue, 'payments', 'review-open', 'txn_doesnotexist', '--reason', 'x', '--operator', 'ops:ama');
  expect(sandbox.code).toBe(1);
  expect(sandbox.stderr).toContain('does not exist');
  const again = await runCli(h.taskQueue, 'payments', 'settle-return', id, '--evidence', 'GCB-TRF-778812', '--reason', 'again', '--operator', 'ops:kojo');
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('already paid');
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
}, 60_000);

test('a return refused on its retry (0013, the first answer lost) is followed to the partner\'s SUCCESSFUL: paid once, its callback and statement line matched', async () => {
  const info = jest.spyOn(h.deps.log, 'info');
  // A live charge to a payer ending in 0013: the partner fails it, then says SUCCESSFUL after all (late money).
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: '233240000013', name: 'Kofi Boateng' }, reference: `late-return-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id: string = res.json.id;
  const ref = await until('the charge submitted to the partner', async () => {
    const rows = await h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [id]);
    return rows[0] && fake.transaction('collection', rows[0].reference_id) ? rows[0].reference_id : undefined;
  });
  expect(fake.settle('collection', ref, { status: 'FAILED', reason: 'APPROVAL_REJECTED' })).toBe(true);
  await until('the charge failed on the partner\'s FAILED', async () => (await h.request('live', 'GET', `/v1/charges/${id}`, { key: m.liveKey })).json.status === 'failed');
  expect(fake.settle('collection', ref, { status: 'SUCCESSFUL' })).toBe(true);
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');

  const settled = await cliJson('payments', 'settle-late', id, '--action', 'return', '--reason', 'merchant declined the late payment', '--operator', 'ops:kojo');
  const returnRef: string = settled.late_answer.return_reference_id;
  // Submitted once (kept, its answer lost), then again: refused with a 400, as 0013 does.
  await until('the return submitted and then refused', async () => (await findLateAnswer(h.orm, id))?.return_status === 'submitted');
  const submissions = fake.requests.filter((r) => r.method === 'POST' && r.path.includes('/transfer') && (r.headers['x-reference-id'] ?? '') === returnRef);
  expect(submissions).toHaveLength(2);
  expect(lost.has(returnRef)).toBe(true);
  expect((await review.query(paymentReviewQuery)).phase).toBe('settling');

  // The partner pays the return and calls back: the callback is matched to the return and wakes the review.
  expect(fake.settle('disbursement', returnRef, { status: 'SUCCESSFUL' })).toBe(true);
  const state = await review.result();
  const history = await review.fetchHistory();
  expect(history.events?.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'returnCallback')).toHaveLength(1);
  expect(state).toMatchObject({ phase: 'settled', settledAction: 'return', needsAttention: false });
  expect(info).toHaveBeenCalledWith(expect.objectContaining({ referenceId: returnRef, paymentId: id, returnTransfer: true, outcome: 'accepted' }), expect.any(String));
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ settled_action: 'return', return_status: 'succeeded' });
  const rows = await balanceRows(h, m.id, 'GHS', 'live');
  expect([rows.late_funds, rows.returns_in_transit]).toEqual([0, 0]);

  // The partner's books: one transfer to the payer, paid once.
  const today = new Date().toISOString().slice(0, 10);
  const statement = fake.statement('disbursement', today);
  const toPayer = statement.lines.filter((l) => l.externalId === `${id}-return`);
  expect(toPayer).toEqual([expect.objectContaining({ referenceId: returnRef, status: 'SUCCESSFUL' })]);
  // Its statement line is ours: matched to the charge, no break (on 83c79c5: missing_here).
  const mine = { ...statement, lines: toPayer };
  const ours = await ourPaymentsFor(h.orm.em.fork(), 'disbursement', today, [returnRef]);
  const matched = matchStatement(mine, ours);
  expect(matched.lines.map((l) => l.paymentId)).toEqual([id]);
  expect(matched.breaks.filter((b) => b.referenceId === returnRef)).toEqual([]);
  expect(matched.matched).toBe(1);
  expect(matched.transactionIds).toEqual([]);
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
}, 60_000);
