import { paymentReviewWorkflowId } from '../../src/domain/payment-review';
import { findLateAnswer } from '../../src/persistence/partner/late-answer-store';
import type { FakePartner } from '../../src/rail/fake-partner';
import { ledgerCheck } from '../../src/services/ledger-check';
import { runSettlements } from '../../src/services/settlement-run';
import { paymentReviewQuery } from '../../workflows/payment-review-messages';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { runCli } from '../support/run-cli';
import { giveSettlementAccount } from '../support/settlement-runs';
import { until } from '../support/webhook-fixtures';

/**
 * Issue 43, finding 4, on the real stack (PostgreSQL, Temporal, the worker, the callback route, the
 * fake partner over HTTP): a live settlement batch the partner FAILED (`0001`) and then paid after
 * all. On 83c79c5 its retry asked the partner only for a batch failed with `timeout`, and the daily
 * run skipped only pending or `timeout` batches, so the money went out a second time and settle-late
 * accept then took available below zero. Now the retry is refused (pointing to settle-late), the
 * run skips the balance, accept is refused while available does not hold the batch, and the partner
 * pays the merchant once.
 */

let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES, timeoutMs: 1_000 });
  ({ h, fake } = partner);
});
afterAll(async () => {
  await partner?.close(); // runs `ledger check` over the whole database first
});

const sql = <T>(text: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(text, params);
const deps = () => ({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue });

/** A funded merchant whose live batch the partner FAILED (0001: NOT_ENOUGH_FUNDS after acceptance), its money back in available. */
async function failedLiveBatch(amount: number): Promise<{ m: TestMerchant; id: string; ref: string }> {
  const m = await h.merchant({ verified: true });
  await fundMerchant(h, m.id, amount, 'GHS', 'live');
  await giveSettlementAccount(h, m.id, '0012345670001', 'GCB');
  const run = await runSettlements(deps(), { merchantId: m.id, environment: 'live' });
  expect(run.batches).toHaveLength(1);
  const id = run.batches[0].id;
  await until('the batch to fail on the partner\'s FAILED', async () => (await sql<{ status: string; failure_class: string }>(`select status, failure_class from settlements where id = ?`, [id]))[0]?.status === 'failed');
  const [{ reference_id: ref }] = await sql<{ reference_id: string }>(`select reference_id::text from rail_references where payment_id = ?`, [id]);
  expect((await balanceRows(h, m.id, 'GHS', 'live')).merchant_available).toBe(amount);
  return { m, id, ref };
}

const retry = (id: string) => runCli(h.taskQueue, 'settlements', 'retry', id, '--reason', 'the bank says the account is fine now', '--operator', 'ops:esi');
const settleLate = (id: string) => runCli(h.taskQueue, 'payments', 'settle-late', id, '--action', 'accept', '--reason', 'the partner paid it after all', '--operator', 'ops:esi');

/** The partner's books: its transfers for this merchant's batches (by externalId), and our batches. */
async function paidOnce(m: TestMerchant, id: string): Promise<void> {
  const batches = await sql<{ id: string; status: string }>(`select id, status from settlements where merchant_id = ? order by created_at`, [m.id]);
  expect(batches).toEqual([{ id, status: 'paid' }]);
  const today = new Date().toISOString().slice(0, 10);
  const transfers = fake.statement('disbursement', today).lines.filter((l) => batches.some((b) => b.id === l.externalId));
  expect(transfers).toEqual([expect.objectContaining({ externalId: id, status: 'SUCCESSFUL' })]);
}

test('a failed live batch whose late SUCCESSFUL was recorded: the retry is refused, the run skips the balance, accept waits until available holds it; paid once', async () => {
  const { m, id, ref } = await failedLiveBatch(70_000);
  // The partner pays it after all and calls back: the batch's review records the late money.
  expect(fake.settle('disbursement', ref, { status: 'SUCCESSFUL' })).toBe(true);
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ kind: 'settlement', our_status: 'failed', settled_action: null });

  // The retry is refused: it would pay the batch twice.
  const refused = await retry(id);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('late SUCCESSFUL recorded');
  expect(refused.stderr).toContain(`payments settle-late ${id} --action accept`);

  // The merchant pays out part of the available money meanwhile (the partner pays it).
  const payout = await h.request('live', 'POST', '/v1/payouts', {
    key: m.liveKey,
    body: { amount: 20_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233240000008', name: 'Ama Mensah' }, reference: `po-${idempotencyKey()}`, metadata: {} },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(payout.status).toBe(200);
  expect(await h.temporal.client.workflow.getHandle(payout.json.id).result()).toMatchObject({ status: 'succeeded' });
  const available = 70_000 - payout.json.total_debit;
  expect((await balanceRows(h, m.id, 'GHS', 'live')).merchant_available).toBe(available);

  // The daily run skips the balance while the late money is unsettled.
  const run = await runSettlements(deps(), { merchantId: m.id, environment: 'live' });
  expect(run).toMatchObject({ started: 0, skipped: 1 });
  expect(run.skips[0].reason).toContain(`live batch ${id} failed, but the partner paid it after all`);

  // Accept would take available below zero: refused, nothing changed.
  const belowZero = await settleLate(id);
  expect(belowZero.code).toBe(1);
  expect(belowZero.stderr).toContain('below zero');
  expect(belowZero.stderr).toContain(`available ${available}`);
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ settled_action: null });
  expect((await balanceRows(h, m.id, 'GHS', 'live')).merchant_available).toBe(available);

  // Once available holds it, accept: the batch is paid, available never went below zero.
  await fundMerchant(h, m.id, payout.json.total_debit, 'GHS', 'live');
  const settled = await settleLate(id);
  expect({ code: settled.code, stderr: settled.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(settled.stdout)).toMatchObject({ action: 'accept', status: 'paid' });
  const rows = await balanceRows(h, m.id, 'GHS', 'live');
  expect([rows.merchant_available, rows.late_funds]).toEqual([0, 0]);
  await paidOnce(m, id);
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
}, 90_000);

test('a batch failed with the partner\'s FAILED that later turns SUCCESSFUL (no callback): the retry asks the partner, is refused and starts its review; the run skips; paid once', async () => {
  const { m, id, ref } = await failedLiveBatch(40_000);
  expect(fake.settle('disbursement', ref, { status: 'SUCCESSFUL' }, { callback: false })).toBe(true);

  const refused = await retry(id);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('the partner says this batch was paid (SUCCESSFUL)');
  expect(refused.stderr).toContain(`payments settle-late ${id} --action accept`);
  // The refusal started the batch's payment review, which records the late money.
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');
  // Refused again, now on our own records.
  const again = await retry(id);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('late SUCCESSFUL recorded');

  const run = await runSettlements(deps(), { merchantId: m.id, environment: 'live' });
  expect(run).toMatchObject({ started: 0, skipped: 1 });
  expect(run.skips[0].reason).toContain('paid it after all');

  const settled = await settleLate(id);
  expect({ code: settled.code, stderr: settled.stderr }).toEqual({ code: 0, stderr: '' });
  expect((await balanceRows(h, m.id, 'GHS', 'live')).merchant_available).toBe(0);
  await paidOnce(m, id);
  // The failed batch's run ends: nothing left to retry.
  expect(await h.temporal.client.workflow.getHandle(id).result()).toMatchObject({ id, status: 'failed', settled_late: true });
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
}, 90_000);

test('another failed batch of the balance paid after all: an older failed batch\'s retry is refused too (its new batch would sweep that money again)', async () => {
  const { m, id: older } = await failedLiveBatch(30_000);
  // The daily run sweeps the released money into a second batch, which the partner FAILS, then pays after all.
  const run = await runSettlements(deps(), { merchantId: m.id, environment: 'live' });
  expect(run.batches).toHaveLength(1);
  const paidLate = run.batches[0].id;
  await until('the second batch to fail', async () => (await sql<{ status: string }>(`select status from settlements where id = ?`, [paidLate]))[0]?.status === 'failed');
  const [{ reference_id: ref }] = await sql<{ reference_id: string }>(`select reference_id::text from rail_references where payment_id = ?`, [paidLate]);
  expect(fake.settle('disbursement', ref, { status: 'SUCCESSFUL' })).toBe(true);
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(paidLate));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');

  const refused = await retry(older);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`batch ${paidLate} of the same balance failed, but the partner paid it after all`);
  expect(refused.stderr).toContain(`payments settle-late ${paidLate} --action accept`);
  expect(await sql<{ id: string }>(`select id from settlements where merchant_id = ? order by created_at`, [m.id])).toEqual([{ id: older }, { id: paidLate }]);

  const settled = await settleLate(paidLate);
  expect({ code: settled.code, stderr: settled.stderr }).toEqual({ code: 0, stderr: '' });
  expect((await balanceRows(h, m.id, 'GHS', 'live')).merchant_available).toBe(0);
  expect((await ledgerCheck(h.orm)).ok).toBe(true);
}, 90_000);
