import { MockActivityEnvironment } from '@temporalio/testing';
import { createPaymentReviewActivities } from '../../activities/payment-review';
import { findLateAnswer, settleLateMoney } from '../../src/persistence/partner/late-answer-store';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';

/**
 * Issue 43 (Medium: "late money ignores the partner's amount and currency"): a late SUCCESSFUL of
 * 150 NGN for a live charge of 150 GHS that had failed is recorded with the partner's amount and
 * currency and nothing else: no late_funds posting, no late_success event, the review told the
 * difference ("partner says 150.00 NGN, we asked 150.00 GHS"), and settle-late refuses to credit or
 * return it. The charge is a real one (fake partner `0002`: refused at once, so it failed having a
 * partner reference); the partner's late answer is handed to the review's step as the review would.
 */

let partner: PartnerHarness;
let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES });
  h = partner.h;
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await partner?.close();
});

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.orm.em.fork().getConnection().execute<T[]>(text, params);

async function failedLiveCharge(): Promise<string> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: '233240000002', name: 'Ama Mensah' }, reference: `late-ngn-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id = res.json.id as string;
  const until = Date.now() + 20_000;
  for (;;) {
    const [row] = await sql<{ status: string }>('select status from charges where id = ?', [id]);
    if (row.status === 'failed') return id;
    if (Date.now() > until) throw new Error(`charge ${id} is ${row.status}, not failed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const lateFunds = async () => (await sql<{ amount: string }>(`select amount::text as amount from account_balances where merchant_id = ? and environment = 'live' and account = 'late_funds'`, [m.id])).map((r) => r.amount);
const eventsOf = async (id: string) => (await sql<{ type: string }>(`select type from events where resource_id = ? order by sequence`, [id])).map((e) => e.type);

test('a late SUCCESSFUL of 150 NGN for a charge of 150 GHS: recorded, nothing moved, the review told the difference, settle-late refused', async () => {
  const id = await failedLiveCharge();
  const fundsBefore = await lateFunds();
  const eventsBefore = await eventsOf(id);
  const steps = createPaymentReviewActivities({ orm: h.orm, secretBox: h.deps.secretBox });
  const status = { status: 'succeeded' as const, financialTransactionId: 'ft-ngn-1', amount: 15_000, currency: 'NGN' };

  const verdict = await new MockActivityEnvironment().run(steps.compareLateAnswer, { paymentId: id, product: 'collection' as const, status, at: new Date().toISOString() });
  expect(verdict).toMatchObject({ verdict: 'disagrees', ourStatus: 'failed', kind: 'charge' });
  expect((verdict as { why: string }).why).toMatch(/partner says 150\.00 NGN, we asked 150\.00 GHS/);
  expect((verdict as { why: string }).why).toMatch(/nothing credited or moved.*settle-late is refused/);

  // Recorded: the late answer with the partner's amount and currency, and its rail_answers row; nothing moved.
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ amount: 15_000, currency: 'GHS', partner_amount: 15_000, partner_currency: 'NGN', held_in_late_funds: false, settled_action: null });
  expect(await sql(`select outcome, amount::int as amount, currency from rail_answers where payment_id = ? and outcome = 'succeeded'`, [id])).toEqual([{ outcome: 'succeeded', amount: 15_000, currency: 'NGN' }]);
  expect(await lateFunds()).toEqual(fundsBefore);
  expect(await eventsOf(id)).toEqual(eventsBefore);

  // Asked again (the review's next run): the same answer, still nothing moved.
  const again = await new MockActivityEnvironment().run(steps.compareLateAnswer, { paymentId: id, product: 'collection' as const, status, at: new Date().toISOString() });
  expect(again).toMatchObject({ verdict: 'disagrees' });
  expect(await lateFunds()).toEqual(fundsBefore);

  // settle-late: neither credit nor return, whoever asks; the charge stays failed.
  for (const action of ['credit', 'return'] as const) {
    await expect(settleLateMoney(h.orm, { paymentId: id, action, operator: 'ops:test', at: new Date().toISOString() })).rejects.toThrow(
      /its late money is not settled while the partner's SUCCESSFUL differs from the payment \(partner says 150\.00 NGN, we asked 150\.00 GHS\): nothing was credited, returned or moved/,
    );
  }
  expect((await sql<{ status: string }>('select status from charges where id = ?', [id]))[0].status).toBe('failed');
  expect(await findLateAnswer(h.orm, id)).toMatchObject({ settled_action: null, return_reference_id: null });
  expect(await lateFunds()).toEqual(fundsBefore);
});

test('a late SUCCESSFUL of a different amount in our currency is refused the same way', async () => {
  const id = await failedLiveCharge();
  const steps = createPaymentReviewActivities({ orm: h.orm, secretBox: h.deps.secretBox });
  const verdict = await new MockActivityEnvironment().run(steps.compareLateAnswer, {
    paymentId: id,
    product: 'collection' as const,
    status: { status: 'succeeded' as const, financialTransactionId: 'ft-ghs-2', amount: 1_500, currency: 'GHS' },
    at: new Date().toISOString(),
  });
  expect((verdict as { why: string }).why).toMatch(/partner says 15\.00 GHS, we asked 150\.00 GHS/);
  await expect(settleLateMoney(h.orm, { paymentId: id, action: 'credit', operator: 'ops:test', at: new Date().toISOString() })).rejects.toThrow(/partner says 15\.00 GHS, we asked 150\.00 GHS/);
});
