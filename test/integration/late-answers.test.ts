import { paymentReviewWorkflowId } from '../../src/domain/payment-review';
import { SA } from '../../src/domain/search-attributes';
import { applyChargeTransition } from '../../src/persistence/charges/charge-store';
import { findLateAnswer } from '../../src/persistence/partner/late-answer-store';
import type { FakePartner } from '../../src/rail/fake-partner';
import { ledgerCheck } from '../../src/services/ledger-check';
import { paymentReviewQuery } from '../../workflows/payment-review-messages';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, MTN_GH, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { runCli } from '../support/run-cli';
import { giveSettlementAccount } from '../support/settlement-runs';
import { runSettlements } from '../../src/services/settlement-run';
import { until } from '../support/webhook-fixtures';
import { recordRailAnswer } from '../../src/persistence/partner/rail-answer-store';

/**
 * Issue 29, "A late answer is never dropped", on the real stack (PostgreSQL, the Temporal dev server,
 * the payments worker, the live listener's callback route, the fake partner over HTTP): a live charge
 * that expired with its workflow closed, then the partner approves it and calls back. The callback is
 * read (a warning, a payment review flagged), the review asks the partner, records the late money
 * (late_answers row, `transaction.late_success`, late_funds posting), and `payments settle-late
 * --action credit` makes the charge succeeded with the merchant credited, audited; the ledger balances.
 */

let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES, timeoutMs: 500 });
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

const eventsOf = async (id: string) => {
  const res = await h.request('live', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.liveKey });
  return res.json.data.filter((e: { resource_id: string }) => e.resource_id === id).map((e: { type: string }) => e.type);
};

/** A live request-to-pay the customer has not approved (0004: the partner answers nothing by itself), then expired with its workflow closed, its hold voided. */
async function expiredLiveCharge(): Promise<{ id: string; ref: string; charge: any }> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: '233240000004', name: 'Kofi Boateng' }, reference: `late-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id: string = res.json.id;
  const ref = await until('the charge submitted to the partner', async () => {
    const rows = await h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [id]);
    return rows[0] && fake.transaction('collection', rows[0].reference_id) ? rows[0].reference_id : undefined;
  });
  // The charge expired at its deadline and its workflow closed (as the charge workflow does), the hold voided.
  // A live charge that reached the partner ends only on the partner's word (issue 43, the status gate):
  // the partner said FAILED at the expiry (recorded as the rail activity would), and its SUCCESSFUL
  // later contradicts it: late money.
  await h.temporal.client.workflow.getHandle(id).terminate('test: the charge reached expires_at');
  await recordRailAnswer(h.orm.em.fork(), { paymentId: id, source: 'status', outcome: 'failed', partnerStatus: 'FAILED', reason: 'test: FAILED at the expiry' });
  await applyChargeTransition(h.orm, { chargeId: id, to: 'expired', failureClass: null, at: new Date().toISOString() });
  return { id, ref, charge: res.json };
}

test('a SUCCESSFUL callback for a live charge that expired: read, recorded as late money, credited through settle-late', async () => {
  const warn = jest.spyOn(h.deps.log, 'warn');
  const { id, ref, charge: res } = await expiredLiveCharge();
  const balances = () => balanceRows(h, m.id, 'GHS', 'live');
  const availableBefore = (await balances()).merchant_available;

  // Then the customer approves: the partner calls back.
  expect(fake.settle('collection', ref, { status: 'SUCCESSFUL' })).toBe(true);
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');
  expect(warn).toHaveBeenCalledWith(expect.objectContaining({ paymentId: id, outcome: 'late' }), expect.stringContaining('payment review'));

  const late = await findLateAnswer(h.orm, id);
  expect(late).toMatchObject({ payment_id: id, kind: 'charge', product: 'collection', partner_status: 'SUCCESSFUL', our_status: 'expired', amount: res.amount, currency: 'GHS', settled_action: null });
  expect((await balances()).late_funds).toBe(res.amount);
  expect(late!.financial_transaction_id).toEqual(expect.any(String));
  expect(await eventsOf(id)).toEqual(['transaction.created', 'transaction.expired', 'transaction.late_success']);
  const describe = await review.describe();
  expect(describe.typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
  expect(describe.typedSearchAttributes.get(SA.MerchantId)).toBe(m.id);
  expect(describe.typedSearchAttributes.get(SA.Environment)).toBe('live');
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
  // payments stuck lists the review, with its reason.
  const stuck = await cliJson('payments', 'stuck', '--env', 'live', '--query', `WorkflowId = '${paymentReviewWorkflowId(id)}'`);
  expect(stuck.data).toContainEqual(expect.objectContaining({ id: paymentReviewWorkflowId(id), needs_attention: true, reason: expect.stringContaining('LATE MONEY') }));

  // An operator credits the merchant: the charge succeeds late, audited. In bulk (issue 43: the bulk
  // form selected no review, the workflow that holds late money): the dry run selects the review.
  const settleLate = ['payments', 'settle-late', '--query', `WorkflowId = '${paymentReviewWorkflowId(id)}'`, '--merchant', m.id, '--action', 'credit', '--reason', 'customer debited after expiry', '--operator', 'ops:ama'];
  const dry = await cliJson(...settleLate);
  expect(dry).toMatchObject({ count: 1, live: 1, first: [{ id: paymentReviewWorkflowId(id), type: 'review', status: 'under_review', merchant_id: m.id }] });
  const settled = await cliJson(...settleLate, '--yes', '--token', dry.token, '--expect', '1');
  expect(settled).toMatchObject({ count: 1, succeeded: 1, results: [{ id: paymentReviewWorkflowId(id), ok: true }] });
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ settled_action: 'credit', settled_by: 'ops:ama' });
  expect((await h.request('live', 'GET', `/v1/charges/${id}`, { key: m.liveKey })).json).toMatchObject({ status: 'succeeded' });
  expect(await eventsOf(id)).toEqual(['transaction.created', 'transaction.expired', 'transaction.late_success', 'transaction.succeeded']);
  expect((await balances()).merchant_available - availableBefore).toBe(res.merchant_amount);
  const audit = await cliJson('audit', 'list', '--payment', id);
  expect(audit.data).toEqual([
    expect.objectContaining({ action: 'payment.settle_late', operator: 'ops:ama', reason: 'customer debited after expiry', batch_id: settled.batch_id, state_before: expect.objectContaining({ status: 'expired' }), state_after: expect.objectContaining({ status: 'succeeded', settled_action: 'credit' }) }),
  ]);
  const state = await review.result();
  expect(state).toMatchObject({ phase: 'settled', settledAction: 'credit', needsAttention: false });
  expect((await balances()).late_funds).toBe(0);
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
});

test('late money returned to the payer: the transfer goes out on the partner rail with its own reference, followed to SUCCESSFUL', async () => {
  const { id, ref, charge } = await expiredLiveCharge();
  expect(fake.settle('collection', ref, { status: 'SUCCESSFUL' })).toBe(true);
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');
  const settled = await cliJson('payments', 'settle-late', id, '--action', 'return', '--reason', 'merchant declined the late payment', '--operator', 'ops:kojo');
  expect(settled).toMatchObject({ action: 'return', status: 'expired', late_answer: { settled_action: 'return', return_status: 'requested' } });
  const returnRef: string = settled.late_answer.return_reference_id;
  expect(returnRef).not.toBe(ref);
  // The transfer reaches the partner (payee: the payer of the charge); the partner pays it.
  const transfer = await until('the return transfer at the partner', async () => fake.transaction('disbursement', returnRef));
  expect(transfer.state).toMatchObject({ amount: expect.any(String), currency: 'GHS', payee: { partyIdType: 'MSISDN', partyId: '233240000004' } });
  expect(fake.settle('disbursement', returnRef, { status: 'SUCCESSFUL' }, { callback: false })).toBe(true);
  const state = await review.result();
  expect(state).toMatchObject({ phase: 'settled', settledAction: 'return', needsAttention: false, ourStatus: 'expired' });
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ settled_action: 'return', return_status: 'succeeded' });
  expect(await eventsOf(id)).toEqual(['transaction.created', 'transaction.expired', 'transaction.late_success', 'transaction.late_return', 'transaction.late_returned']);
  const rows = await balanceRows(h, m.id, 'GHS', 'live');
  expect([rows.late_funds, rows.returns_in_transit]).toEqual([0, 0]);
  expect((await h.request('live', 'GET', `/v1/charges/${id}`, { key: m.liveKey })).json).toMatchObject({ status: 'expired', amount: charge.amount });
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
}, 60_000);

test('a live payout the partner paid after it failed: recorded, then accepted as paid (from available)', async () => {
  const p = await h.merchant({ verified: true });
  await fundMerchant(h, p.id, 100_000, 'GHS', 'live');
  const created = await h.request('live', 'POST', '/v1/payouts', {
    key: p.liveKey,
    body: { amount: 20_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233240000001', name: 'Kofi Boateng' }, reference: `late-po-${idempotencyKey()}`, metadata: {} },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(created.status).toBe(200);
  const id: string = created.json.id;
  expect(await h.temporal.client.workflow.getHandle(id).result()).toMatchObject({ status: 'failed' });
  const [{ reference_id: ref }] = await h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [id]);
  expect((await balanceRows(h, p.id, 'GHS', 'live')).merchant_available).toBe(100_000);

  expect(fake.settle('disbursement', ref, { status: 'SUCCESSFUL' })).toBe(true);
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ kind: 'payout', product: 'disbursement', our_status: 'failed', amount: 20_000 });
  expect((await balanceRows(h, p.id, 'GHS', 'live')).late_funds).toBe(-20_000);
  const refused = await runCli(h.taskQueue, 'payments', 'settle-late', id, '--action', 'credit', '--reason', 'x');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('accept');

  const settled = await cliJson('payments', 'settle-late', id, '--action', 'accept', '--reason', 'partner paid the recipient late', '--operator', 'ops:esi');
  expect(settled).toMatchObject({ action: 'accept', status: 'succeeded' });
  expect((await h.request('live', 'GET', `/v1/payouts/${id}`, { key: p.liveKey })).json).toMatchObject({ status: 'succeeded' });
  const rows = await balanceRows(h, p.id, 'GHS', 'live');
  expect([rows.merchant_available, rows.merchant_reserved, rows.late_funds]).toEqual([100_000 - created.json.total_debit, 0, 0]);
  const events = await h.request('live', 'GET', '/v1/events?after_sequence=0&limit=100', { key: p.liveKey });
  expect(events.json.data.filter((e: { resource_id: string }) => e.resource_id === id).map((e: { type: string }) => e.type)).toEqual(['payout.initiated', 'payout.failed', 'payout.late_success', 'payout.succeeded']);
  expect(await review.result()).toMatchObject({ phase: 'settled', settledAction: 'accept', needsAttention: false });
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
}, 60_000);

test('ledger check: late_funds must hold exactly the late money not settled yet', async () => {
  const sql = (text: string, params: unknown[] = []) => h.orm.em.getConnection().execute(text, params);
  // A late_answers row written around the store (no posting): the suspense does not hold it.
  await sql(`insert into late_answers (payment_id, kind, product, merchant_id, environment, partner_status, amount, currency, our_status, recorded_at)
             values ('txn_latecheck', 'charge', 'collection', ?, 'live', 'SUCCESSFUL', 500, 'GHS', 'expired', now())`, [m.id]);
  try {
    const report = await ledgerCheck(h.orm);
    expect(report.ok).toBe(false);
    expect(report.ok ? [] : report.late_money_mismatches).toEqual([{ merchant_id: m.id, environment: 'live', currency: 'GHS', account: 'late_funds', balance: '0', expected: '500' }]);
  } finally {
    await sql(`delete from late_answers where payment_id = 'txn_latecheck'`);
  }
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
});

test('a live settlement the partner paid after it failed (its workflow still waiting for a retry): recorded, accepted as paid', async () => {
  const s = await h.merchant({ verified: true });
  await fundMerchant(h, s.id, 70_000, 'GHS', 'live');
  await giveSettlementAccount(h, s.id, '0012345670001', 'GCB'); // 0001: the partner refuses it after acceptance
  const run = await runSettlements({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue }, { merchantId: s.id, environment: 'live' });
  expect(run.batches).toHaveLength(1);
  const id = run.batches[0].id;
  const settlementStatus = async () => (await h.orm.em.getConnection().execute<Array<{ status: string }>>(`select status from settlements where id = ?`, [id]))[0]?.status;
  await until('the settlement to fail', async () => (await settlementStatus()) === 'failed');
  const [{ reference_id: ref }] = await h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [id]);

  expect(fake.settle('disbursement', ref, { status: 'SUCCESSFUL' })).toBe(true);
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ kind: 'settlement', our_status: 'failed', amount: 70_000 });
  expect((await balanceRows(h, s.id, 'GHS', 'live')).late_funds).toBe(-70_000);
  expect((await ledgerCheck(h.orm)).ok).toBe(true);

  const settled = await cliJson('payments', 'settle-late', id, '--action', 'accept', '--reason', 'the bank confirmed the credit', '--operator', 'ops:esi');
  expect(settled).toMatchObject({ action: 'accept', status: 'paid' });
  expect(await settlementStatus()).toBe('paid');
  const rows = await balanceRows(h, s.id, 'GHS', 'live');
  // The failed batch returned 70 000 to available; paid late, it leaves again.
  expect([rows.merchant_available, rows.merchant_reserved, rows.late_funds]).toEqual([0, 0, 0]);
  expect(await review.result()).toMatchObject({ phase: 'settled', settledAction: 'accept', needsAttention: false });
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
  // The failed batch's run no longer offers a retry that would pay it twice: it ends, not needing attention.
  const batchRun = h.temporal.client.workflow.getHandle(id);
  expect(await batchRun.result()).toMatchObject({ id, status: 'failed', settled_late: true });
  expect((await batchRun.describe()).searchAttributes.NeedsAttention).toEqual([false]);
}, 60_000);
