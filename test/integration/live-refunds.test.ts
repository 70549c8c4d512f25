import { expectError } from '../support/api-errors';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { gatedStatus } from '../support/status-gate';
import { runCli } from '../support/run-cli';
import { paymentReviewWorkflowId } from '../../src/domain/payment-review';
import { findLateAnswer } from '../../src/persistence/partner/late-answer-store';
import { paymentReviewQuery } from '../../workflows/payment-review-messages';
import { importAndFlag } from '../../src/reconcile/import-statement';
import { flagPaymentReview } from '../../src/services/payment-review';
import { ledgerCheck } from '../../src/services/ledger-check';
import { until } from '../support/webhook-fixtures';
import { waitFor } from '../workflows/support/wait-for';

/**
 * Issue 45, "Live refunds on the mobile-money partner": a live refund goes to the partner as MoMo's
 * refund (`POST /disbursement/v1_0/refund` naming the charge's request-to-pay), against the fake
 * partner over real HTTP. Its amount is reserved at creation; only the partner's word ends it, through
 * the status gate; full and partial; never above what is left of the charge. The fake partner plays a
 * refund's behaviour from the charge payer's ending `01NN` (docs/partner-rail.md). The harness's close
 * runs the ledger check.
 */

let p: PartnerHarness;
let m: TestMerchant;

beforeAll(async () => {
  p = await startPartnerHarness({ fake: { approveAfterMs: 300, latePayoutSuccessMs: 2_000 } });
  m = await p.h.merchant({ verified: true });
  // The refunds are paid from the available balance; the charges' fees are not returned.
  await fundMerchant(p.h, m.id, 100_000, 'GHS', 'live');
});
afterAll(() => p?.close());

const phone = (suffix: string) => `23324000${suffix}`;

async function succeededLiveCharge(suffix: string, amount = 15_000): Promise<string> {
  const res = await p.h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ amount, customer: { identifier: phone(suffix), name: 'Ama Mensah' }, reference: `live-refund-${suffix}-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  expect(await p.h.settled(res.json.id)).toMatchObject({ status: 'succeeded', environment: 'live' });
  return res.json.id as string;
}

function refund(body: Record<string, unknown>, key = idempotencyKey()) {
  return p.h.request('live', 'POST', '/v1/refunds', { key: m.liveKey, body, headers: { 'Idempotency-Key': key } });
}

const getRefund = async (id: string) => (await p.h.request('live', 'GET', `/v1/refunds/${id}`, { key: m.liveKey })).json;
const finished = (id: string) => p.h.temporal.client.workflow.getHandle(id).result() as Promise<{ status: string; failureClass: string | null }>;

async function referenceOf(paymentId: string): Promise<{ reference_id: string; product: string }> {
  const rows = await p.h.orm.em.getConnection().execute<Array<{ reference_id: string; product: string }>>(`select reference_id::text, product from rail_references where payment_id = ?`, [paymentId]);
  return rows[0];
}

async function eventTypes(resourceId: string): Promise<string[]> {
  const res = await p.h.request('live', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.liveKey });
  return res.json.data.filter((e: { resource_id: string }) => e.resource_id === resourceId).map((e: { type: string }) => e.type);
}

const submissionsOf = (referenceId: string) => p.fake.requests.filter((r) => r.method === 'POST' && r.headers['x-reference-id'] === referenceId);

describe('live refunds on the partner rail', () => {
  test("a full refund: MoMo's refund naming the charge's request-to-pay, reserved, then succeeded on the partner's word", async () => {
    const chargeId = await succeededLiveCharge('4567');
    const before = await balanceRows(p.h, m.id, 'GHS', 'live');
    const res = await refund({ charge: chargeId, reason: 'requested_by_customer' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ object: 'refund', status: 'pending', amount: 15_000, charge: chargeId, livemode: true });
    // Reserved at creation.
    expect(await balanceRows(p.h, m.id, 'GHS', 'live')).toMatchObject({ merchant_available: before.merchant_available - 15_000 });

    expect(await finished(res.json.id)).toMatchObject({ status: 'succeeded', failureClass: null });
    const ref = await referenceOf(res.json.id);
    expect(ref.product).toBe('refund');
    const [submission] = submissionsOf(ref.reference_id);
    expect(submission.path).toBe('/disbursement/v1_0/refund');
    expect(submission.body).toMatchObject({ amount: '150.00', currency: 'GHS', externalId: res.json.id, referenceIdToRefund: (await referenceOf(chargeId)).reference_id });
    expect(await getRefund(res.json.id)).toMatchObject({ status: 'succeeded' });
    expect((await p.h.request('live', 'GET', `/v1/charges/${chargeId}`, { key: m.liveKey })).json).toMatchObject({ amount_refunded: 15_000 });
    expect(await eventTypes(res.json.id)).toEqual(['refund.created', 'refund.succeeded']);
    // The end rests on the partner's recorded SUCCESSFUL, which its postings carry.
    const answers = await p.h.orm.em
      .getConnection()
      .execute<Array<{ outcome: string; product: string }>>(`select outcome, product from rail_answers where payment_id = ? order by id`, [res.json.id]);
    expect(answers.map((a) => a.outcome)).toContain('succeeded');
    expect(new Set(answers.map((a) => a.product))).toEqual(new Set(['refund']));
    const postings = await p.h.orm.em
      .getConnection()
      .execute<Array<{ n: number }>>(`select count(*)::int as n from ledger_entries where resource_id = ? and rail_answer_id is not null`, [res.json.id]);
    expect(postings[0].n).toBeGreaterThan(0);
  });

  test('partial refunds up to what is left; one more is refused by the API and nothing is sent', async () => {
    const chargeId = await succeededLiveCharge('4568', 10_000);
    const first = await refund({ charge: chargeId, amount: 4_000 });
    const second = await refund({ charge: chargeId, amount: 6_000 });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await finished(first.json.id)).toMatchObject({ status: 'succeeded' });
    expect(await finished(second.json.id)).toMatchObject({ status: 'succeeded' });
    const posts = p.fake.requests.filter((r) => r.method === 'POST').length;
    expectError(await refund({ charge: chargeId, amount: 1 }), 422, 'amount_exceeds_refundable', 'amount');
    expect(p.fake.requests.filter((r) => r.method === 'POST').length).toBe(posts);
    expect((await p.h.request('live', 'GET', `/v1/charges/${chargeId}`, { key: m.liveKey })).json).toMatchObject({ amount_refunded: 10_000 });
  });

  test("0101: the partner's FAILED ends the refund failed and gives the reservation back", async () => {
    const chargeId = await succeededLiveCharge('0101');
    const before = await balanceRows(p.h, m.id, 'GHS', 'live');
    const res = await refund({ charge: chargeId, amount: 5_000 });
    expect(await finished(res.json.id)).toMatchObject({ status: 'failed' });
    expect(await balanceRows(p.h, m.id, 'GHS', 'live')).toMatchObject({ merchant_available: before.merchant_available });
    expect(await eventTypes(res.json.id)).toEqual(['refund.created', 'refund.failed']);
    expect((await p.h.request('live', 'GET', `/v1/charges/${chargeId}`, { key: m.liveKey })).json).toMatchObject({ amount_refunded: 0 });
  });

  test('0104: the partner never answers: the refund stays pending, reserved, while the workflow polls; the gate refuses to end it by hand', async () => {
    const chargeId = await succeededLiveCharge('0104');
    const res = await refund({ charge: chargeId, amount: 2_500 });
    let ref = '';
    await waitFor(async () => (ref = (await referenceOf(res.json.id))?.reference_id ?? '') !== '');
    await waitFor(async () => p.fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith(ref)).length >= 2, 30_000);
    expect(await getRefund(res.json.id)).toMatchObject({ status: 'pending' });
    // Around the workflow, through the store's gate: the database refuses an end the partner never said.
    await expect(gatedStatus(p.h.orm, 'refund', res.json.id, 'pending', 'failed')).rejects.toThrow(/the partner has not said FAILED/);
    await expect(gatedStatus(p.h.orm, 'refund', res.json.id, 'pending', 'succeeded')).rejects.toThrow(/the partner has not said SUCCESSFUL/);
    // And a plain update, around the gate's marker.
    await expect(p.h.orm.em.getConnection().execute(`update refunds set status = 'failed' where id = ?`, [res.json.id])).rejects.toThrow(/payment gate/);
    expect(await getRefund(res.json.id)).toMatchObject({ status: 'pending' });
    await p.h.temporal.client.workflow.getHandle(res.json.id).terminate('test: the partner never answers');
    // The reservation stays: the money is not released without the partner's word (the ledger check at close balances).
  });

  test('0115: a SUCCESSFUL for another amount is held, the refund stays pending', async () => {
    const chargeId = await succeededLiveCharge('0115');
    const res = await refund({ charge: chargeId, amount: 3_000 });
    const succeeded = () =>
      p.h.orm.em.getConnection().execute<Array<{ amount: string }>>(`select amount::text as amount from rail_answers where payment_id = ? and outcome = 'succeeded'`, [res.json.id]);
    await waitFor(async () => (await succeeded()).length > 0, 30_000);
    expect((await succeeded()).map((r) => Number(r.amount))).toEqual([2_999]);
    expect(await getRefund(res.json.id)).toMatchObject({ status: 'pending' });
    await p.h.temporal.client.workflow.getHandle(res.json.id).terminate('test: held for the partner to agree');
  });

  test('charges reverse on a live charge: a refund of what is left through the partner, audited once; asked again, the same refund', async () => {
    const chargeId = await succeededLiveCharge('4569', 12_000);
    const partial = await refund({ charge: chargeId, amount: 2_000 });
    expect(await finished(partial.json.id)).toMatchObject({ status: 'succeeded' });
    const reverse = () => runCli(p.h.taskQueue, 'charges', 'reverse', chargeId, '--reason', 'customer complaint: ticket 88231', '--operator', 'ops:ama');
    const first = await reverse();
    expect(first.code).toBe(0);
    const reversal = JSON.parse(first.stdout);
    expect(reversal).toMatchObject({ object: 'refund', charge: chargeId, amount: 10_000, status: 'pending', livemode: true, metadata: { reversal_of: chargeId, reversed_by: 'ops:ama' } });
    expect(await finished(reversal.id)).toMatchObject({ status: 'succeeded' });
    expect(submissionsOf((await referenceOf(reversal.id)).reference_id)[0].path).toBe('/disbursement/v1_0/refund');
    // The charge stays succeeded, wholly refunded; the money went back through the partner.
    expect((await p.h.request('live', 'GET', `/v1/charges/${chargeId}`, { key: m.liveKey })).json).toMatchObject({ status: 'succeeded', amount_refunded: 12_000 });
    const again = await reverse();
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: reversal.id });
    const audit = await p.h.orm.em
      .getConnection()
      .execute<Array<{ action: string; operator: string; state_after: { reversal_refund: string } }>>(`select action, operator, state_after from operator_audit where payment_id = ?`, [chargeId]);
    expect(audit).toEqual([expect.objectContaining({ action: 'charge.reverse', operator: 'ops:ama', state_after: expect.objectContaining({ reversal_refund: reversal.id }) })]);
  });

  test("a refund the partner paid after it said FAILED: the callback is read, its review records late money, accepted as paid", async () => {
    const chargeId = await succeededLiveCharge('0101', 9_000);
    const res = await refund({ charge: chargeId, amount: 4_000 });
    expect(await finished(res.json.id)).toMatchObject({ status: 'failed' });
    const available = (await balanceRows(p.h, m.id, 'GHS', 'live')).merchant_available;
    const { reference_id: ref } = await referenceOf(res.json.id);

    // The partner changes its mind and calls back: the refund's workflow is closed, the callback is late.
    expect(p.fake.settle('refund', ref, { status: 'SUCCESSFUL' })).toBe(true);
    const review = p.h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(res.json.id));
    await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');
    expect(await findLateAnswer(p.h.orm, res.json.id)).toMatchObject({ kind: 'refund', product: 'refund', our_status: 'failed', amount: 4_000 });
    expect((await balanceRows(p.h, m.id, 'GHS', 'live')).late_funds).toBe(-4_000);
    expect(await eventTypes(res.json.id)).toEqual(['refund.created', 'refund.failed', 'refund.late_success']);

    const settled = await runCli(p.h.taskQueue, 'payments', 'settle-late', res.json.id, '--action', 'accept', '--reason', 'the partner refunded the payer late', '--operator', 'ops:esi');
    expect({ code: settled.code, stderr: settled.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(settled.stdout)).toMatchObject({ action: 'accept', status: 'succeeded' });
    expect(await getRefund(res.json.id)).toMatchObject({ status: 'succeeded' });
    expect((await p.h.request('live', 'GET', `/v1/charges/${chargeId}`, { key: m.liveKey })).json).toMatchObject({ amount_refunded: 4_000 });
    const rows = await balanceRows(p.h, m.id, 'GHS', 'live');
    expect([rows.merchant_available, rows.late_funds]).toEqual([available - 4_000, 0]);
    expect(await eventTypes(res.json.id)).toEqual(['refund.created', 'refund.failed', 'refund.late_success', 'refund.succeeded']);
    expect(await review.result()).toMatchObject({ phase: 'settled', settledAction: 'accept', needsAttention: false });
    expect((await ledgerCheck(p.h.orm)).ok).toBe(true);
  });

  test("the disbursement statement lists refunds: a clean refund line matches; one the partner lists for another amount is a break flagged to the refund's review", async () => {
    const chargeId = await succeededLiveCharge('4571', 8_000);
    const clean = await refund({ charge: chargeId, amount: 1_000 });
    const amended = await refund({ charge: chargeId, amount: 2_000 });
    expect(await finished(clean.json.id)).toMatchObject({ status: 'succeeded' });
    expect(await finished(amended.json.id)).toMatchObject({ status: 'succeeded' });
    const cleanRef = (await referenceOf(clean.json.id)).reference_id;
    const amendedRef = (await referenceOf(amended.json.id)).reference_id;
    p.fake.amendStatement('disbursement', amendedRef, { amount: '25.00' });
    const today = new Date().toISOString().slice(0, 10);
    const statement = p.fake.statement('disbursement', today);
    expect(statement.lines.map((l) => l.referenceId)).toEqual(expect.arrayContaining([cleanRef, amendedRef]));
    await importAndFlag({ orm: p.h.orm, flag: (start) => flagPaymentReview(p.h.temporal.client, start, p.h.taskQueue) }, statement, 'test');
    const lines = await p.h.orm.em
      .getConnection()
      .execute<Array<{ reference_id: string; payment_id: string | null }>>(
        `select l.reference_id::text as reference_id, l.payment_id from partner_statement_lines l join partner_statements s on s.id = l.statement_id
         where s.product = 'disbursement' and s.statement_date = ?::date and l.reference_id::text in (?, ?)`,
        [today, cleanRef, amendedRef],
      );
    expect(new Map(lines.map((l) => [l.reference_id, l.payment_id]))).toEqual(new Map([[cleanRef, clean.json.id], [amendedRef, amended.json.id]]));
    const breaks = await p.h.orm.em
      .getConnection()
      .execute<Array<{ kind: string; payment_id: string }>>(`select kind, payment_id from reconciliation_breaks where payment_id in (?, ?)`, [clean.json.id, amended.json.id]);
    expect(breaks).toEqual([{ kind: 'amount_mismatch', payment_id: amended.json.id }]);
    const review = p.h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(amended.json.id));
    await until('the refund\'s review to open with the break', async () => ((await review.query(paymentReviewQuery).catch(() => null))?.reasons ?? []).some((r: { source: string }) => r.source === 'reconciliation'));
    await review.terminate('test done');
  });

  test.each([
    ['0102', 'refused at once (PAYEE_NOT_FOUND)', 'failed'],
    ['0103', 'FAILED after acceptance (PAYEE_NOT_ALLOWED_TO_RECEIVE)', 'failed'],
    ['0105', 'its callback sent twice', 'succeeded'],
    ['0106', 'a 500 on its first submission', 'succeeded'],
    ['0108', 'no callback (found by polling)', 'succeeded'],
    ['0109', 'a late callback', 'succeeded'],
    ['0112', 'SUCCESSFUL only after a wait (pending meanwhile, never failed on a deadline)', 'succeeded'],
    ['0113', 'a repeat refused while in progress', 'succeeded'],
  ])("refund behaviour %s: %s → %s, one refund at the partner", async (suffix, _what, end) => {
    const chargeId = await succeededLiveCharge(suffix, 6_000);
    const res = await refund({ charge: chargeId, amount: 2_000 });
    expect(await finished(res.json.id)).toMatchObject({ status: end });
    const { reference_id: ref } = await referenceOf(res.json.id);
    expect(p.fake.transactions('disbursement').filter((t) => t.resource === 'refund' && t.state.externalId === res.json.id).length).toBe(suffix === '0102' ? 0 : 1);
    expect(new Set(submissionsOf(ref).map((r) => r.path))).toEqual(new Set(['/disbursement/v1_0/refund']));
    expect((await p.h.request('live', 'GET', `/v1/charges/${chargeId}`, { key: m.liveKey })).json).toMatchObject({ amount_refunded: end === 'succeeded' ? 2_000 : 0 });
  });
});
