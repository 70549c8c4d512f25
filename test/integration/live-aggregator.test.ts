import { expectError } from '../support/api-errors';
import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { AGGREGATOR_WEBHOOK_ROUTE } from '../../src/rail/aggregator/webhook-route';
import type { FakeAggregator } from '../../src/rail/aggregator/fake';
import { postForm, startCheckoutWeb, type CheckoutWeb } from '../support/checkout-web';
import { giveSettlementAccount } from '../support/settlement-runs';
import { runSettlements } from '../../src/services/settlement-run';

/**
 * Issue 45, "a second partner": with RAIL_ROUTES `mobile_money:GHS=momo,mobile_money:KES=aggregator,bank:*=aggregator`, a live
 * bank charge goes to the aggregator (a bank transfer into the account it gives, modelled on
 * Flutterwave v3; the fake aggregator over real HTTP) and ends on its word; a live bank payout is its
 * transfer; a refund of that charge goes back through the aggregator whatever the routes; mobile
 * money stays with the MoMo partner; a channel no partner takes answers 503 naming it. Each payment
 * records and shows its `rail`. The aggregator's webhooks reach the live listener and wake the
 * workflow; a forged one changes nothing. The harness's close runs the ledger check.
 */

let p: PartnerHarness;
let agg: FakeAggregator;
let m: TestMerchant;
let web: CheckoutWeb;

beforeAll(async () => {
  p = await startPartnerHarness({ aggregator: { fake: { approveAfterMs: 300, bankTransferExpiryMs: 6_000 }, routes: 'mobile_money:GHS=momo,mobile_money:KES=aggregator,bank:*=aggregator' } });
  agg = p.aggregator!;
  web = await startCheckoutWeb(p.h);
  m = await p.h.merchant({ verified: true });
  await fundMerchant(p.h, m.id, 500_000, 'GHS', 'live');
});
afterAll(async () => {
  await web?.close();
  await p?.close();
});

const bankCharge = (account: string, amount = 20_000) =>
  p.h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ channel: 'bank', momo_network_id: undefined, amount, customer: { identifier: account, name: 'Esi Owusu' }, reference: `agg-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });

const finished = (id: string) => p.h.temporal.client.workflow.getHandle(id).result() as Promise<{ status: string; failureClass?: string | null }>;

async function referenceOf(paymentId: string): Promise<{ reference_id: string; product: string; partner: string }> {
  const rows = await p.h.orm.em.getConnection().execute<Array<{ reference_id: string; product: string; partner: string }>>(`select reference_id::text, product, partner from rail_references where payment_id = ?`, [paymentId]);
  return rows[0];
}

async function eventTypes(resourceId: string): Promise<string[]> {
  const res = await p.h.request('live', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.liveKey });
  return res.json.data.filter((e: { resource_id: string }) => e.resource_id === resourceId).map((e: { type: string }) => e.type);
}

describe('the aggregator (bank) beside the MoMo partner (mobile money)', () => {
  test('a live bank charge: a bank transfer at the aggregator with our tx_ref; its hosted page shows the account to pay into; paid, succeeded; rail aggregator', async () => {
    // 0004: the transfer is not made by itself (the account expires unpaid unless the customer pays).
    const res = await bankCharge('GH0012340004', 20_000);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ channel: 'bank', livemode: true, rail: 'aggregator', status: 'awaiting_action', action: { type: 'hosted_checkout' } });
    const url: string = res.json.action.url;
    expect(url.startsWith(`${web.url}/checkout/`)).toBe(true);
    // The page shows the account the aggregator gave (once its answer is in), no decision, no test banner.
    let page = '';
    for (let i = 0; i < 50 && !page.includes('id="account-number"'); i++) {
      page = await (await fetch(url)).text();
      if (!page.includes('id="account-number"')) await new Promise((r) => setTimeout(r, 100));
    }
    const ref = await referenceOf(res.json.id);
    const kept = agg.transaction('collection', ref.reference_id)!;
    expect(page).toContain('id="account-number"');
    expect(page).toContain('Bank transfer');
    expect(page).not.toContain('TEST MODE');
    expect(page).not.toContain('name="decision"');
    expect(JSON.stringify(kept)).toContain(page.match(/id="account-number">([^<]+)</)![1]);
    expect((await postForm(url, { decision: 'approve' })).status).toBe(404);
    // The customer pays (the fake aggregator's control, as its `POST /_fake/pay/{tx_ref}`); no webhook (0004): found by polling.
    expect(agg.pay(ref.reference_id)).toBe('paid');
    expect(await p.h.settled(res.json.id)).toMatchObject({ status: 'succeeded', environment: 'live' });
    expect((await fetch(url)).status).toBe(410);
    expect(ref).toMatchObject({ product: 'collection', partner: 'aggregator' });
    const posted = agg.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v3/charges'));
    expect(posted.some((r) => r.path.includes('type=bank_transfer') && JSON.stringify(r.body).includes(ref.reference_id))).toBe(true);
    // Nothing of it went to the MoMo partner.
    expect(p.fake.requests.filter((r) => r.headers['x-reference-id'] === ref.reference_id)).toEqual([]);
    expect(await eventTypes(res.json.id)).toEqual(['transaction.created', 'transaction.succeeded']);
    expect((await p.h.request('live', 'GET', `/v1/charges/${res.json.id}`, { key: m.liveKey })).json).toMatchObject({ status: 'succeeded', rail: 'aggregator' });
  });

  test('an unpaid bank transfer: the aggregator expires its account, its FAILED ends the charge (nothing collected)', async () => {
    const res = await bankCharge('GH0012340004');
    expect(await p.h.settled(res.json.id)).toMatchObject({ status: 'failed' });
    expect(await eventTypes(res.json.id)).toEqual(['transaction.created', 'transaction.failed']);
  });

  test('a refund of an aggregator charge goes back through the aggregator (partial, then the rest)', async () => {
    const res = await bankCharge('GH0012345679', 10_000);
    expect(await p.h.settled(res.json.id)).toMatchObject({ status: 'succeeded' });
    const partial = await p.h.request('live', 'POST', '/v1/refunds', { key: m.liveKey, body: { charge: res.json.id, amount: 4_000 }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(partial.json).toMatchObject({ status: 'pending', rail: 'aggregator' });
    expect(await finished(partial.json.id)).toMatchObject({ status: 'succeeded' });
    const rest = await p.h.request('live', 'POST', '/v1/refunds', { key: m.liveKey, body: { charge: res.json.id }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(rest.json).toMatchObject({ amount: 6_000, rail: 'aggregator' });
    expect(await finished(rest.json.id)).toMatchObject({ status: 'succeeded' });
    for (const id of [partial.json.id, rest.json.id]) {
      const ref = await referenceOf(id);
      expect(ref).toMatchObject({ product: 'refund', partner: 'aggregator' });
      expect(agg.transaction('refund', ref.reference_id)).toBeDefined();
    }
    expect((await p.h.request('live', 'GET', `/v1/charges/${res.json.id}`, { key: m.liveKey })).json).toMatchObject({ amount_refunded: 10_000 });
  });

  test('a live payout to a bank account is an aggregator transfer; mobile money still goes to the MoMo partner', async () => {
    const bank = await p.h.request('live', 'POST', '/v1/payouts', {
      key: m.liveKey,
      body: { amount: 25_000, currency: 'GHS', channel: 'bank', bank_code: 'GCB', recipient: { identifier: '1234567890', name: 'Kofi Boateng' }, reference: `agg-po-${idempotencyKey()}`, metadata: {} },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(bank.status).toBe(200);
    expect(bank.json).toMatchObject({ rail: 'aggregator' });
    expect(await finished(bank.json.id)).toMatchObject({ status: 'succeeded' });
    expect(agg.transaction('disbursement', (await referenceOf(bank.json.id)).reference_id)).toBeDefined();

    const momo = await p.h.request('live', 'POST', '/v1/charges', {
      key: m.liveKey,
      body: chargeBody({ customer: { identifier: '233240004567', name: 'Ama Mensah' }, reference: `agg-mm-${idempotencyKey()}` }),
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(momo.json).toMatchObject({ rail: 'momo' });
    expect(await p.h.settled(momo.json.id)).toMatchObject({ status: 'succeeded' });
    expect(await referenceOf(momo.json.id)).toMatchObject({ partner: 'momo' });
  });

  test('a channel no partner takes answers 503 live_unavailable naming it, and nothing is created', async () => {
    const key = idempotencyKey();
    const res = await p.h.request('live', 'POST', '/v1/charges', {
      key: m.liveKey,
      body: chargeBody({ channel: 'card', momo_network_id: undefined, customer: { identifier: '4242424242424242', name: 'Esi' }, reference: `agg-card-${key}` }),
      headers: { 'Idempotency-Key': key },
    });
    expectError(res, 503, 'live_unavailable');
    expect(res.json.error.message).toContain('card');
    const rows = await p.h.orm.em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from idempotency_keys where key = ?`, [key]);
    expect(rows[0].n).toBe(0);
  });

  test("the aggregator's webhooks reach the live listener; a forged one (wrong verif-hash) is answered 200 and changes nothing", async () => {
    const sent = agg.webhooksSent.length;
    const res = await bankCharge('GH0012345680');
    expect(await p.h.settled(res.json.id)).toMatchObject({ status: 'succeeded' });
    const ref = (await referenceOf(res.json.id)).reference_id;
    await new Promise((r) => setTimeout(r, 300));
    expect(agg.webhooksSent.slice(sent).some((w) => JSON.stringify(w).includes(ref))).toBe(true);

    const forged = await fetch(`${p.h.urls.live}${AGGREGATOR_WEBHOOK_ROUTE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'verif-hash': 'not-the-hash' },
      body: JSON.stringify({ event: 'charge.completed', data: { id: 1, tx_ref: ref, status: 'failed', amount: 200, currency: 'GHS' } }),
    });
    expect(forged.status).toBe(200);
    expect((await p.h.request('live', 'GET', `/v1/charges/${res.json.id}`, { key: m.liveKey })).json).toMatchObject({ status: 'succeeded' });
  });

  test("a live settlement batch goes to its currency's bank partner (the aggregator here): its transfer is the aggregator's, and it is paid on the aggregator's word", async () => {
    const merchant = await p.h.merchant({ verified: true });
    await fundMerchant(p.h, merchant.id, 40_000, 'GHS', 'live');
    await giveSettlementAccount(p.h, merchant.id, '0012345678901', 'GCB');
    const run = await runSettlements({ orm: p.h.orm, client: p.h.temporal.client, taskQueue: p.h.taskQueue }, { merchantId: merchant.id, environment: 'live' });
    expect(run.batches).toHaveLength(1);
    const batch = run.batches[0].id;
    const paid = (await p.h.temporal.client.workflow.getHandle(batch).result()) as { status: string };
    expect(paid).toMatchObject({ status: 'paid' });
    const [row] = await p.h.orm.em.getConnection().execute<Array<{ rail: string; status: string }>>(`select rail, status from settlements where id = ?`, [batch]);
    expect(row).toEqual({ rail: 'aggregator', status: 'paid' });
    const ref = await referenceOf(batch);
    expect(ref).toMatchObject({ product: 'disbursement', partner: 'aggregator' });
    expect(agg.transaction('disbursement', ref.reference_id)).toMatchObject({ status: 'successful' });
  });

  test('mobile money routed to the aggregator by currency (KES: M-Pesa, mobile_money:KES=aggregator): the charge is its mpesa charge and ends on its word; its refund goes back there; GHS stays with the MoMo partner', async () => {
    const res = await p.h.request('live', 'POST', '/v1/charges', {
      key: m.liveKey,
      body: chargeBody({ currency: 'KES', momo_network_id: '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b04', amount: 10_000, customer: { identifier: '254712345678', name: 'Wanjiru' }, reference: `agg-kes-${idempotencyKey()}` }),
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ rail: 'aggregator', status: 'awaiting_action', action: { type: 'prompt' } });
    expect(await finished(res.json.id)).toMatchObject({ status: 'succeeded' });
    const ref = await referenceOf(res.json.id);
    expect(ref).toMatchObject({ product: 'collection', partner: 'aggregator' });
    const sent = agg.requests.find((r) => (r.body as { tx_ref?: string } | undefined)?.tx_ref === ref.reference_id)!;
    expect(sent.path).toBe('/v3/charges?type=mpesa');
    expect(sent.body).toMatchObject({ phone_number: '254712345678', amount: 100, currency: 'KES' });
    const refund = await p.h.request('live', 'POST', '/v1/refunds', { key: m.liveKey, body: { charge: res.json.id, amount: 4_000 }, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(refund.json).toMatchObject({ rail: 'aggregator' });
    expect(await finished(refund.json.id)).toMatchObject({ status: 'succeeded' });
    const ghs = await p.h.request('live', 'POST', '/v1/charges', { key: m.liveKey, body: chargeBody({ reference: `agg-ghs-${idempotencyKey()}` }), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(ghs.json).toMatchObject({ rail: 'momo' });
    expect(await finished(ghs.json.id)).toMatchObject({ status: 'succeeded' });
  });
});
