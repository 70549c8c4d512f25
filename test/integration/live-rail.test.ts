import { randomBytes } from 'node:crypto';
import { startFakePartner, type FakePartner } from '../../src/rail/fake-partner';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import { callbackToken } from '../../src/rail/momo-callback';
import type { PartnerRail } from '../../src/rail/partner-rail';
import type { Resolver } from '../../src/webhooks/url-policy';
import { updateMerchantSettings } from '../../src/persistence/merchants/merchant-settings-store';
import { runSettlements } from '../../src/services/settlement-run';
import { expectError } from '../support/api-errors';
import { countRows } from '../support/db-counts';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { giveSettlementAccount } from '../support/settlement-runs';
import { waitFor } from '../workflows/support/wait-for';

/**
 * Issue 20, "A live partner rail": live charges and payouts go through the partner adapter (against
 * the fake partner, over real HTTP), with the partner's callbacks arriving at the live listener's
 * callback route; the workflow confirms each with a status request. One test per behaviour of the
 * partner for charges, the main ones for payouts, a live charge and payout end to end (ledger, events,
 * webhook fan-out, settlement through the rail's transfer), live limits under concurrency, and that
 * the sandbox never reaches the partner.
 */

const SECRET = randomBytes(32).toString('base64url');
const resolve: Resolver = async (host) => {
  if (host === 'hooks.example.com') return ['93.184.216.34'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

let fake: FakePartner;
let h: Harness;
let adapter: MomoPartnerRail;
let m: TestMerchant;

beforeAll(async () => {
  fake = await startFakePartner({ approveAfterMs: 300, slowMs: 1_500, lateCallbackMs: 1_500 });
  // The adapter's callback URLs point at the harness's live listener, known once it listens.
  const rail: PartnerRail = { submit: (p, r) => adapter.submit(p, r), status: (p, ref) => adapter.status(p, ref) };
  h = await startHarness({ rail, partnerCallbacks: { callbackSecret: SECRET }, resolve });
  adapter = new MomoPartnerRail(fake.partnerConfig({ callbackBaseUrl: h.urls.live, callbackSecret: SECRET, timeoutMs: 500 }));
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await h?.close();
  await adapter?.close();
  await fake?.close();
});

const phone = (suffix: string) => `23324000${suffix}`;
/** Reference networks (migration 20261122000002) of the other currencies the limits tests use. */
const MPESA_KE = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b04';
const MTN_UG = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b06';

async function liveCharge(suffix: string, overrides: Record<string, unknown> = {}, merchant = m) {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: merchant.liveKey,
    body: chargeBody({ customer: { identifier: phone(suffix), name: 'Ama Mensah' }, reference: `live-${suffix}-${idempotencyKey()}`, ...overrides }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  return res.json as { id: string; status: string };
}

async function referenceOf(paymentId: string): Promise<string> {
  const rows = await h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [paymentId]);
  return rows[0].reference_id;
}

const submissionsOf = (referenceId: string) => fake.requests.filter((r) => r.method === 'POST' && r.headers['x-reference-id'] === referenceId);

async function eventTypes(key: string, env: 'sandbox' | 'live', resourceId: string): Promise<string[]> {
  const res = await h.request(env, 'GET', '/v1/events?after_sequence=0&limit=100', { key });
  return res.json.data.filter((e: { resource_id: string }) => e.resource_id === resourceId).map((e: { type: string }) => e.type);
}

describe('live charges on the partner rail', () => {
  test('success: request-to-pay with our reference, the callback wakes the workflow, succeeded; events and webhook fan-out in live', async () => {
    const endpoint = await h.request('live', 'POST', '/v1/webhook-endpoints', { key: m.liveKey, body: { url: 'https://hooks.example.com/live', subscribed_events: ['transaction.succeeded'] } });
    expect(endpoint.status).toBe(201);
    const created = await liveCharge('4567', { metadata: { sandbox_outcome: 'insufficient_funds' } });
    expect(created.status).toBe('awaiting_action');
    expect(await h.settled(created.id)).toMatchObject({ status: 'succeeded', environment: 'live' });
    const ref = await referenceOf(created.id);
    const [submission] = submissionsOf(ref);
    expect(submission.path).toBe('/collection/v1_0/requesttopay');
    expect(submission.body).toMatchObject({ amount: '150.00', currency: 'GHS', externalId: created.id, payer: { partyIdType: 'MSISDN', partyId: phone('4567') } });
    expect(fake.callbacksSent.filter((c) => c.referenceId === ref).map((c) => c.outcome)).toContainEqual({ status: 200 });
    expect(await eventTypes(m.liveKey, 'live', created.id)).toEqual(['transaction.created', 'transaction.succeeded']);
    // The event is fanned out to the live endpoint (its delivery row), as any live event.
    const deliveries = () =>
      h.orm.em
        .getConnection()
        .execute<Array<{ n: number }>>(`select count(*)::int as n from webhook_deliveries d join events e on e.id = d.event_id where e.resource_id = ? and d.endpoint_id = ?`, [created.id, endpoint.json.id]);
    for (let i = 0; i < 50 && (await deliveries())[0].n === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await deliveries())[0].n).toBe(1);
    expect((await h.request('live', 'GET', `/v1/charges/${created.id}`, { key: m.liveKey })).json).toMatchObject({ status: 'succeeded', livemode: true });
  });

  test.each([
    ['0002', 'refused at once (PAYER_NOT_FOUND)', 'invalid_recipient'],
    ['0001', 'refused after acceptance (NOT_ENOUGH_FUNDS)', 'insufficient_funds'],
    ['0003', 'PAYEE_NOT_ALLOWED_TO_RECEIVE', 'invalid_recipient'],
  ])('%s: %s → failed %s', async (suffix, _name, failureClass) => {
    const created = await liveCharge(suffix);
    expect(await h.settled(created.id)).toMatchObject({ status: 'failed', failureClass });
    expect(await eventTypes(m.liveKey, 'live', created.id)).toEqual(['transaction.created', 'transaction.failed']);
  });

  test.each([
    ['0005', 'a duplicate callback'],
    ['0006', 'a 500 on the first submission'],
    ['0007', 'a slow answer past the adapter timeout'],
    ['0008', 'no callback at all (found by polling)'],
    ['0009', 'a late callback'],
  ])('%s: %s → succeeded once, every submission with the same reference', async (suffix) => {
    const created = await liveCharge(suffix);
    expect(await h.settled(created.id)).toMatchObject({ status: 'succeeded' });
    const ref = await referenceOf(created.id);
    const submissions = submissionsOf(ref);
    expect(submissions.length).toBeGreaterThanOrEqual(1);
    expect(new Set(submissions.map((s) => s.headers['x-reference-id']))).toEqual(new Set([ref]));
    if (suffix === '0006' || suffix === '0007') expect(submissions.length).toBeGreaterThanOrEqual(2);
    expect(await eventTypes(m.liveKey, 'live', created.id)).toEqual(['transaction.created', 'transaction.succeeded']);
  });

  test('0004: the partner never answers: the charge stays awaiting_action while the workflow polls', async () => {
    const created = await liveCharge('0004');
    let ref = '';
    await waitFor(async () => (ref = await referenceOf(created.id).catch(() => '')) !== '');
    // Until the workflow has asked the partner's status twice (the poll schedule's first steps).
    const statusRequests = () => fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith(ref)).length;
    await waitFor(async () => statusRequests() >= 2, 30_000);
    expect((await h.request('live', 'GET', `/v1/charges/${created.id}`, { key: m.liveKey })).json.status).toBe('awaiting_action');
    expect(fake.callbacksSent.filter((c) => c.referenceId === ref)).toEqual([]);
  });

  test('forged, unknown-reference and malformed callbacks are answered 200 and change nothing', async () => {
    const created = await liveCharge('0004');
    await new Promise((r) => setTimeout(r, 500));
    const ref = await referenceOf(created.id);
    const body = JSON.stringify({ externalId: created.id, amount: '150.00', currency: 'GHS', status: 'SUCCESSFUL', financialTransactionId: 'forged' });
    const put = (path: string, text = body) => fetch(`${h.urls.live}${path}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text });
    const answers = await Promise.all([
      put(`/partner/momo/callbacks/collection/${ref}?token=not-the-token`),
      put(`/partner/momo/callbacks/collection/${ref}`),
      put(`/partner/momo/callbacks/collection/00000000-0000-4000-8000-000000000000?token=${callbackToken(SECRET, 'collection', '00000000-0000-4000-8000-000000000000')}`),
      put(`/partner/momo/callbacks/collection/${ref}?token=${callbackToken(SECRET, 'collection', ref)}`, '{"not":"a status"}'),
      // A genuine token with a forged body: a wake-up only; the status request says pending.
      put(`/partner/momo/callbacks/collection/${ref}?token=${callbackToken(SECRET, 'collection', ref)}`),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(await a.text()).toBe('');
    }
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await h.request('live', 'GET', `/v1/charges/${created.id}`, { key: m.liveKey })).json.status).toBe('awaiting_action');
    expect(await eventTypes(m.liveKey, 'live', created.id)).toEqual(['transaction.created']);
    // The callback route is on the live listener only.
    expect((await fetch(`${h.urls.sandbox}/partner/momo/callbacks/collection/${ref}?token=x`, { method: 'PUT', body })).status).toBe(404);
  });

  test('the sandbox never reaches the partner', async () => {
    const before = fake.requests.length;
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody({ customer: { identifier: phone('0002'), name: 'A' } }), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(await h.settled(res.json.id)).toMatchObject({ status: 'succeeded', environment: 'sandbox' });
    expect(fake.requests.slice(before).filter((r) => JSON.stringify(r.body ?? '').includes(res.json.id))).toEqual([]);
    const rows = await h.orm.em.getConnection().execute<unknown[]>(`select 1 from rail_references where payment_id = ?`, [res.json.id]);
    expect(rows).toEqual([]);
  });
});

describe('live payouts on the partner rail', () => {
  const payoutBody = (suffix: string, amount = 20_000) => ({
    amount,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    recipient: { identifier: phone(suffix), name: 'Kofi Boateng' },
    reference: `po-${suffix}-${idempotencyKey()}`,
    metadata: {},
  });

  test('transfer succeeded: the reservation is paid out; PAYEE_NOT_ALLOWED_TO_RECEIVE: failed, released', async () => {
    const p = await h.merchant({ verified: true });
    await fundMerchant(h, p.id, 100_000, 'GHS', 'live');
    const ok = await h.request('live', 'POST', '/v1/payouts', { key: p.liveKey, body: payoutBody('4567'), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(ok.status).toBe(200);
    const bad = await h.request('live', 'POST', '/v1/payouts', { key: p.liveKey, body: payoutBody('0003'), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(bad.status).toBe(200);
    const done = await h.temporal.client.workflow.getHandle(ok.json.id).result();
    const failed = await h.temporal.client.workflow.getHandle(bad.json.id).result();
    expect(done).toMatchObject({ status: 'succeeded' });
    expect(failed).toMatchObject({ status: 'failed', failureClass: 'invalid_recipient' });
    const ref = await referenceOf(ok.json.id);
    expect(submissionsOf(ref)[0]).toMatchObject({ path: '/disbursement/v1_0/transfer', body: { payee: { partyIdType: 'MSISDN', partyId: phone('4567') }, amount: '200.00' } });
    const rows = await balanceRows(h, p.id, 'GHS', 'live');
    expect(rows.merchant_reserved).toBe(0);
    expect(rows.merchant_available).toBe(100_000 - ok.json.total_debit);
    expect(await eventTypes(p.liveKey, 'live', ok.json.id)).toEqual(['payout.initiated', 'payout.succeeded']);
  });

  test('a live settlement pays through the rail transfer to the settlement account', async () => {
    const s = await h.merchant({ verified: true });
    await fundMerchant(h, s.id, 70_000, 'GHS', 'live');
    await giveSettlementAccount(h, s.id, '0012345678901', 'GCB');
    const run = await runSettlements({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue }, { merchantId: s.id, environment: 'live' });
    expect(run.batches).toHaveLength(1);
    const result = await h.temporal.client.workflow.getHandle(run.batches[0].id).result();
    expect(result).toMatchObject({ status: 'paid', environment: 'live' });
    const ref = await referenceOf(run.batches[0].id);
    expect(submissionsOf(ref)[0]).toMatchObject({ path: '/disbursement/v1_0/transfer', body: { payee: { partyIdType: 'BANK_ACCOUNT', partyId: 'GCB:0012345678901' }, amount: '700.00' } });
  });
});

describe('live limits, per currency (merchants set --live-max-amount CUR:N --live-daily-limit CUR:N)', () => {
  test('over the per-transaction limit: 422 amount_limit_exceeded naming it, nothing written', async () => {
    const l = await h.merchant({ verified: true });
    await updateMerchantSettings(h.orm, l.id, { liveMaxAmount: { GHS: 20_000 } });
    const before = await countRows(h.orm, l.id);
    const res = await h.request('live', 'POST', '/v1/charges', { key: l.liveKey, body: chargeBody({ amount: 20_001 }), headers: { 'Idempotency-Key': idempotencyKey() } });
    expectError(res, 422, 'amount_limit_exceeded', 'amount');
    expect(res.json.error.message).toMatch(/live_max_amount GHS:20000/);
    expect(await countRows(h.orm, l.id)).toEqual(before);
    // The sandbox has no live limits.
    expect((await h.request('sandbox', 'POST', '/v1/charges', { key: l.testKey, body: chargeBody({ amount: 20_001 }), headers: { 'Idempotency-Key': idempotencyKey() } })).status).toBe(200);
  });

  test('50 parallel creates never pass the daily limit together', async () => {
    const l = await h.merchant({ verified: true });
    await updateMerchantSettings(h.orm, l.id, { liveDailyLimit: { GHS: 100_000 } });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.request('live', 'POST', '/v1/charges', { key: l.liveKey, body: chargeBody({ amount: 10_000, reference: `lim-${i}`, customer: { identifier: phone('0004'), name: 'A' } }), headers: { 'Idempotency-Key': idempotencyKey() } }),
      ),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(ok).toHaveLength(10);
    for (const r of refused) expectError(r, 422, 'amount_limit_exceeded', 'amount');
    const [{ n, sum }] = await h.orm.em
      .getConnection()
      .execute<Array<{ n: number; sum: number }>>(`select count(*)::int as n, coalesce(sum(amount), 0)::int as sum from charges where merchant_id = ? and environment = 'live'`, [l.id]);
    expect({ n, sum }).toEqual({ n: 10, sum: 100_000 });
    // Payouts have their own day's sum against the same limit.
    await fundMerchant(h, l.id, 500_000, 'GHS', 'live');
    const payout = await h.request('live', 'POST', '/v1/payouts', {
      key: l.liveKey,
      body: { amount: 100_001, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: phone('0004'), name: 'K' }, reference: 'p-lim' },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expectError(payout, 422, 'amount_limit_exceeded', 'amount');
  });

  test('each currency has its own limits and its own day: two currencies are never added together', async () => {
    const l = await h.merchant({ verified: true });
    await updateMerchantSettings(h.orm, l.id, { liveDailyLimit: { GHS: 100_000, KES: 100_000 }, liveMaxAmount: { KES: 70_000 } });
    const create = (amount: number, currency: 'GHS' | 'KES') =>
      h.request('live', 'POST', '/v1/charges', {
        key: l.liveKey,
        body: chargeBody({ amount, currency, momo_network_id: currency === 'KES' ? MPESA_KE : MTN_GH, reference: `cur-${idempotencyKey()}`, customer: { identifier: currency === 'KES' ? '254700000004' : phone('0004'), name: 'A' } }),
        headers: { 'Idempotency-Key': idempotencyKey() },
      });
    // 60,000 pesewas and 60,000 KES cents are each under their own day's 100,000 (summed, 120,000 would not be).
    expect((await create(60_000, 'GHS')).status).toBe(200);
    expect((await create(60_000, 'KES')).status).toBe(200);
    // Each day's sum is its own currency's: the next 50,000 passes neither.
    for (const currency of ['GHS', 'KES'] as const) {
      const refused = await create(50_000, currency);
      expectError(refused, 422, 'amount_limit_exceeded', 'amount');
      expect(refused.json.error.message).toContain(`live_daily_limit ${currency}:100000`);
    }
    // KES has a per-transaction maximum, GHS none.
    const over = await create(70_001, 'KES');
    expectError(over, 422, 'amount_limit_exceeded', 'amount');
    expect(over.json.error.message).toContain('live_max_amount KES:70000');
    const usage = await h.orm.em
      .getConnection()
      .execute<Array<{ kind: string; currency: string; amount: string }>>(`select kind, currency, amount::text as amount from live_daily_usage where merchant_id = ? order by currency`, [l.id]);
    expect(usage).toEqual([
      { kind: 'charge', currency: 'GHS', amount: '60000' },
      { kind: 'charge', currency: 'KES', amount: '60000' },
    ]);
    // A currency without limits has none.
    expect((await h.request('live', 'POST', '/v1/charges', { key: l.liveKey, body: chargeBody({ amount: 500_000, currency: 'UGX', momo_network_id: MTN_UG, reference: `cur-${idempotencyKey()}`, customer: { identifier: '256770000004', name: 'A' } }), headers: { 'Idempotency-Key': idempotencyKey() } })).status).toBe(200);
  });

  test('an unverified merchant is still 403 identity_verification_required on live', async () => {
    const u = await h.merchant();
    expectError(await h.request('live', 'POST', '/v1/charges', { key: u.liveKey, body: chargeBody(), headers: { 'Idempotency-Key': idempotencyKey() } }), 403, 'identity_verification_required');
  });
});
