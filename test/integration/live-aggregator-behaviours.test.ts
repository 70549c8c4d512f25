import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import type { FakeAggregator } from '../../src/rail/aggregator/fake';

/**
 * Issue 45, "for every fake behaviour of both partners, the engine ends the payment as the partner
 * said, never before": the fake aggregator's behaviours (docs/aggregator.md; the account's or phone's
 * last four digits, a refund's from its charge's payer `01NN`) played through the engine (a bank
 * charge, a bank payout, a refund), against the fake over real HTTP. A late answer after an end
 * is covered for refunds in live-refunds.test.ts (the same review path, whichever partner).
 */

let p: PartnerHarness;
let agg: FakeAggregator;
let m: TestMerchant;

beforeAll(async () => {
  p = await startPartnerHarness({ aggregator: { fake: { approveAfterMs: 200, lateCallbackMs: 1_500, latePayoutSuccessMs: 3_000, slowMs: 1_500 }, routes: 'mobile_money:*=momo,bank:*=aggregator' }, timeoutMs: 1_000 });
  agg = p.aggregator!;
  m = await p.h.merchant({ verified: true });
  await fundMerchant(p.h, m.id, 1_000_000, 'GHS', 'live');
});
afterAll(() => p?.close());

async function bankCharge(account: string, amount = 20_000): Promise<string> {
  const res = await p.h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ channel: 'bank', momo_network_id: undefined, amount, customer: { identifier: account, name: 'Esi Owusu' }, reference: `aggb-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  return res.json.id as string;
}

async function bankPayout(account: string): Promise<string> {
  const res = await p.h.request('live', 'POST', '/v1/payouts', {
    key: m.liveKey,
    body: { amount: 10_000, currency: 'GHS', channel: 'bank', bank_code: 'GCB', recipient: { identifier: account, name: 'Kofi' }, reference: `aggb-po-${idempotencyKey()}`, metadata: {} },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  return res.json.id as string;
}

const finished = (id: string) => p.h.temporal.client.workflow.getHandle(id).result() as Promise<{ status: string; failureClass?: string | null }>;
const referenceOf = async (id: string) =>
  (await p.h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [id]))[0]?.reference_id;
const statusOf = async (kind: 'charges' | 'payouts' | 'refunds', id: string) => (await p.h.request('live', 'GET', `/v1/${kind}/${id}`, { key: m.liveKey })).json.status as string;

describe('bank charges at the aggregator, by account ending', () => {
  test.each([
    ['0001', 'refused after acceptance (INSUFFICIENT_FUNDS)'],
    ['0002', 'refused at once (INVALID_ACCOUNT)'],
    ['0003', 'refused after acceptance (RECIPIENT_NOT_ALLOWED)'],
  ])('%s: %s → failed', async (suffix) => {
    const id = await bankCharge(`GH001234${suffix}`);
    expect(await p.h.settled(id)).toMatchObject({ status: 'failed' });
  });

  test.each([
    ['0005', 'a webhook sent twice'],
    ['0006', 'a 500 on the first submission'],
    ['0007', 'a slow answer past the adapter timeout'],
    ['0008', 'no webhook (found by polling)'],
    ['0009', 'a late webhook'],
    ['0013', 'a repeat refused while in progress'],
  ])('%s: %s → succeeded once, one transaction at the aggregator', async (suffix) => {
    const id = await bankCharge(`GH001234${suffix}`);
    expect(await p.h.settled(id)).toMatchObject({ status: 'succeeded' });
    const ref = await referenceOf(id);
    expect(agg.transactions('collection').filter((t) => t.referenceId.toLowerCase() === ref.toLowerCase())).toHaveLength(1);
  });

  test('0015: the aggregator says successful for one minor unit less: held, the charge stays open (never succeeded on another amount)', async () => {
    const id = await bankCharge('GH0012340015');
    const successful = () =>
      p.h.orm.em.getConnection().execute<Array<{ amount: string }>>(`select amount::text as amount from rail_answers where payment_id = ? and outcome = 'succeeded'`, [id]);
    for (let i = 0; i < 100 && (await successful()).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await successful()).map((r) => Number(r.amount))).toEqual([19_999]);
    expect(await statusOf('charges', id)).toBe('awaiting_action');
    await p.h.temporal.client.workflow.getHandle(id).terminate('test: held for the aggregator to agree');
  });
});

describe('bank payouts and refunds at the aggregator', () => {
  test('0001: the transfer fails at the aggregator: failed, the reservation back', async () => {
    const id = await bankPayout('1234560001');
    expect(await finished(id)).toMatchObject({ status: 'failed' });
  });

  test('0012: the aggregator pays late: pending meanwhile (never failed on a deadline), then succeeded', async () => {
    const id = await bankPayout('1234560012');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await statusOf('payouts', id)).toBe('pending');
    expect(await finished(id)).toMatchObject({ status: 'succeeded' });
  });

  test("0101: a refund of a charge whose payer ends 0101 fails at the aggregator; the refund ends failed, the charge's money untouched", async () => {
    const chargeId = await bankCharge('GH0012340101');
    expect(await p.h.settled(chargeId)).toMatchObject({ status: 'succeeded' });
    const res = await p.h.request('live', 'POST', '/v1/refunds', { key: m.liveKey, body: { charge: chargeId, amount: 5_000 }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(res.json).toMatchObject({ rail: 'aggregator' });
    expect(await finished(res.json.id)).toMatchObject({ status: 'failed' });
    expect((await p.h.request('live', 'GET', `/v1/charges/${chargeId}`, { key: m.liveKey })).json).toMatchObject({ amount_refunded: 0 });
  });
});
