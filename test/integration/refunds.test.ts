import { refundJson } from '../../src/domain/refund';
import { applyChargeTransition } from '../../src/persistence/charges/charge-store';
import { issueKey } from '../../src/persistence/merchants/merchant-store';
import { writeRefundOnce } from '../../src/persistence/refunds/refund-create-store';
import { findRefund } from '../../src/persistence/refunds/refund-store';
import { startUnstartedRefunds } from '../../src/runtime/refund-start-relay';
import { newId } from '../../src/support/new-id';
import { completeNow } from '../support/advance';
import { expectError } from '../support/api-errors';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { expectBalancesMatchPostings } from '../support/ledger-rows';
import { accept, draftCharge } from '../support/stored-charges';
import { succeededCharge } from '../support/succeeded-charge';

/**
 * Refunds end to end through the HTTP API, against the suite's PostgreSQL and Temporal dev server
 * with the payments worker: POST /v1/refunds (one transaction: claim, charge lock, refundable and
 * balance checks, row, reservation, `refund.created`), the refund workflow (sandbox rail, then
 * post or release, amount_refunded, `refund.succeeded|failed`), GET one and the list. Charges are
 * written through the charge store (no charge workflow) unless the test says otherwise.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
});
afterAll(() => closeWithLedgerCheck(h));

function refund(merchant: TestMerchant, body: Record<string, unknown>, key: string | null = idempotencyKey(), env: 'sandbox' | 'live' = 'sandbox') {
  return h.request(env, 'POST', '/v1/refunds', { key: env === 'sandbox' ? merchant.testKey : merchant.liveKey, body, headers: key ? { 'idempotency-key': key } : {} });
}

/** The refund's result once its sandbox timer fired by itself, about three seconds: the first test only. */
const settled = (refundId: string) => h.temporal.client.workflow.getHandle(refundId).result() as Promise<{ status: string; failureClass: string | null }>;
/** The refund's rail step fired now (sandbox advance) rather than after its three seconds; the first test waits them out. */
const completed = (merchant: TestMerchant, refundId: string) => completeNow<{ status: string; failureClass: string | null }>(h, merchant.testKey, refundId);
const getCharge = async (merchant: TestMerchant, id: string) => (await h.request('sandbox', 'GET', `/v1/charges/${id}`, { key: merchant.testKey })).json;

async function count(table: 'refunds' | 'events' | 'ledger_entries', merchantId: string): Promise<number> {
  const rows = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from ${table} where merchant_id = ?`, [merchantId]);
  return Number(rows[0].n);
}

async function eventsOf(merchant: TestMerchant): Promise<{ type: string; resource_id: string; transaction_id?: string; data: Record<string, unknown> }[]> {
  return (await h.request('sandbox', 'GET', '/v1/events?after_sequence=0&limit=100', { key: merchant.testKey })).json.data;
}

describe('full and partial refunds', () => {
  test('a full refund (no amount): pending with the amount reserved, then succeeded; amount_refunded follows; fees are not returned', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 1_000);
    const available = charge.merchantAmount + 1_000;
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: available, merchant_reserved: 0 });

    const res = await refund(merchant, { charge: charge.id, reason: 'requested_by_customer', metadata: { order: '42', b: 1, a: 2 } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^re_[0-9A-Za-z]{24}$/),
      object: 'refund',
      status: 'pending',
      amount: 15_000,
      currency: 'GHS',
      charge: charge.id,
      reason: 'requested_by_customer',
      livemode: false,
      rail: 'sandbox',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      metadata: { order: '42', b: 1, a: 2 },
    });
    expect(res.text).toContain('"metadata":{"order":"42","b":1,"a":2}');
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: available - 15_000, merchant_reserved: 15_000 });
    expect((await getCharge(merchant, charge.id)).amount_refunded).toBe(0);

    expect(await settled(res.json.id)).toMatchObject({ status: 'succeeded', failureClass: null });
    const fetched = await h.request('sandbox', 'GET', `/v1/refunds/${res.json.id}`, { key: merchant.testKey });
    expect(fetched.json).toMatchObject({ id: res.json.id, status: 'succeeded', amount: 15_000 });
    expect(fetched.json).not.toHaveProperty('failure_class');
    expect(fetched.text).toBe(refundJson((await findRefund(h.orm, { merchantId: merchant.id, environment: 'sandbox' }, res.json.id))!));
    expect((await getCharge(merchant, charge.id)).amount_refunded).toBe(15_000);
    const rows = await balanceRows(h, merchant.id);
    expect(rows).toMatchObject({ merchant_available: available - 15_000, merchant_reserved: 0, refund_clearing: 15_000 });
    // The charge's fee stays with the platform.
    expect(rows.platform_fee).toBe(charge.fee.platform);

    const events = (await eventsOf(merchant)).filter((e) => e.resource_id === res.json.id);
    expect(events.map((e) => e.type)).toEqual(['refund.created', 'refund.succeeded']);
    expect(events.every((e) => e.transaction_id === charge.id)).toBe(true);
    expect(events[1].data).toEqual(fetched.json);
    await expectBalancesMatchPostings(h.orm, merchant.id);

    // Nothing is left to refund.
    expectError(await refund(merchant, { charge: charge.id }), 422, 'amount_exceeds_refundable', 'amount');
  });

  test('partial refunds: each reserves its amount; the default is what is still refundable; over it is amount_exceeds_refundable', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 10_000);
    const first = await refund(merchant, { charge: charge.id, amount: 4_000 });
    const second = await refund(merchant, { charge: charge.id, amount: 6_000 });
    expect([first.status, second.status]).toEqual([200, 200]);
    expectError(await refund(merchant, { charge: charge.id, amount: 5_001 }), 422, 'amount_exceeds_refundable', 'amount');
    const rest = await refund(merchant, { charge: charge.id });
    expect(rest.json).toMatchObject({ status: 'pending', amount: 5_000 });
    for (const r of [first, second, rest]) expect((await completed(merchant, r.json.id)).status).toBe('succeeded');
    expect((await getCharge(merchant, charge.id)).amount_refunded).toBe(15_000);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: charge.merchantAmount + 10_000 - 15_000, merchant_reserved: 0, refund_clearing: 15_000 });
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });

  test('a refund that fails (sandbox_outcome declined) releases its reservation; its amount is refundable again', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 10_000);
    const before = await balanceRows(h, merchant.id);
    const res = await refund(merchant, { charge: charge.id, amount: 7_000, metadata: { sandbox_outcome: 'declined' } });
    expect(res.status).toBe(200);
    expect(await completed(merchant, res.json.id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
    const fetched = await h.request('sandbox', 'GET', `/v1/refunds/${res.json.id}`, { key: merchant.testKey });
    expect(fetched.json).toMatchObject({ status: 'failed', failure_class: 'declined' });
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: before.merchant_available, merchant_reserved: 0 });
    expect((await getCharge(merchant, charge.id)).amount_refunded).toBe(0);
    expect((await eventsOf(merchant)).filter((e) => e.resource_id === res.json.id).map((e) => e.type)).toEqual(['refund.created', 'refund.failed']);
    const again = await refund(merchant, { charge: charge.id });
    expect(again.json.amount).toBe(15_000);
    expect((await completed(merchant, again.json.id)).status).toBe('succeeded');
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });

  test('a refund of a charge collected through the API', async () => {
    const merchant = await h.merchant();
    const created = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body: chargeBody(), headers: { 'idempotency-key': idempotencyKey() } });
    expect((await completeNow(h, merchant.testKey, created.json.id)).status).toBe('succeeded');
    const res = await refund(merchant, { charge: created.json.id, amount: 10_000 });
    expect(res.status).toBe(200);
    expect((await completed(merchant, res.json.id)).status).toBe('succeeded');
    const charge = await getCharge(merchant, created.json.id);
    expect(charge).toMatchObject({ status: 'succeeded', amount_refunded: 10_000 });
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: charge.merchant_amount - 10_000, merchant_reserved: 0 });
  });
});

describe('errors: a clear error and nothing written', () => {
  test('a charge with a pending or succeeded refund cannot be reversed (the customer would be paid twice); nothing is written', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 20_000);
    const res = await refund(merchant, { charge: charge.id, amount: 1_000 });
    expect(res.status).toBe(200);
    const before = { events: await count('events', merchant.id), ledger: await count('ledger_entries', merchant.id) };
    await expect(applyChargeTransition(h.orm, { chargeId: charge.id, to: 'reversed', failureClass: null, at: new Date().toISOString() })).rejects.toMatchObject({
      name: 'TransitionRefusedError',
      message: expect.stringContaining('pending or succeeded refunds'),
    });
    expect({ events: await count('events', merchant.id), ledger: await count('ledger_entries', merchant.id) }).toEqual(before);
    expect((await getCharge(merchant, charge.id)).status).toBe('succeeded');
    await completed(merchant, res.json.id);
  });

  test('charge_not_refundable for a pending, failed or reversed charge', async () => {
    const merchant = await h.merchant();
    await fundMerchant(h, merchant.id, 100_000);
    const pending = await accept(h.orm, draftCharge(merchant.id, 15_000));
    const failed = await accept(h.orm, draftCharge(merchant.id, 15_000));
    await applyChargeTransition(h.orm, { chargeId: failed.id, to: 'failed', failureClass: 'declined', at: new Date().toISOString() });
    const reversed = await succeededCharge(h, merchant);
    await applyChargeTransition(h.orm, { chargeId: reversed.id, to: 'reversed', failureClass: null, at: new Date().toISOString() });
    const events = await count('events', merchant.id);
    for (const charge of [pending, failed, reversed]) expectError(await refund(merchant, { charge: charge.id, amount: 100 }), 422, 'charge_not_refundable', 'charge');
    expect(await count('refunds', merchant.id)).toBe(0);
    expect(await count('events', merchant.id)).toBe(events);
  });

  test('insufficient_balance when available cannot cover the refund (fees were kept: a full refund needs more than the charge left)', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant);
    const before = await balanceRows(h, merchant.id);
    const key = idempotencyKey();
    expectError(await refund(merchant, { charge: charge.id }, key), 422, 'insufficient_balance', 'amount');
    expect(await count('refunds', merchant.id)).toBe(0);
    expect(await balanceRows(h, merchant.id)).toEqual(before);
    // The refusal stored nothing, not even the key: the same request succeeds once the balance covers it.
    await fundMerchant(h, merchant.id, 15_000);
    const res = await refund(merchant, { charge: charge.id }, key);
    expect(res.status).toBe(200);
    expect((await completed(merchant, res.json.id)).status).toBe('succeeded');
  });

  test('not_found for another merchant\'s charge or an unknown one; 400 for a bad body; Idempotency-Key required; scope', async () => {
    const merchant = await h.merchant();
    const other = await h.merchant();
    const theirs = await succeededCharge(h, other, 15_000, 20_000);
    await fundMerchant(h, merchant.id, 20_000);
    expectError(await refund(merchant, { charge: theirs.id }), 404, 'not_found', 'charge');
    expectError(await refund(merchant, { charge: newId('charge') }), 404, 'not_found', 'charge');
    expectError(await refund(merchant, { charge: 'txn_bad' }), 400, 'invalid_request', 'charge');
    expectError(await refund(merchant, { amount: 100 }), 400, 'invalid_request', 'charge');
    expectError(await refund(merchant, { charge: theirs.id, amount: 0 }), 400, 'invalid_request', 'amount');
    expectError(await refund(merchant, { charge: theirs.id, amount: 1.5 }), 400, 'invalid_request', 'amount');
    expectError(await refund(merchant, { charge: theirs.id, reason: 'because' }), 400, 'invalid_request', 'reason');
    expectError(await refund(merchant, { charge: theirs.id, currency: 'GHS' }), 400, 'invalid_request', 'currency');
    expectError(await refund(merchant, { charge: theirs.id }, null), 400, 'idempotency_key_required');
    const readOnly = await issueKey(h.orm, merchant.id, 'sandbox', ['refunds:read']);
    const denied = await h.request('sandbox', 'POST', '/v1/refunds', { key: readOnly.secret, body: { charge: theirs.id }, headers: { 'idempotency-key': idempotencyKey() } });
    expectError(denied, 403, 'insufficient_scope');
    expect(await count('refunds', merchant.id)).toBe(0);
    expect(await count('refunds', other.id)).toBe(0);
    expectError(await h.request('sandbox', 'GET', `/v1/refunds/${newId('refund')}`, { key: merchant.testKey }), 404, 'not_found', 'id');
    expectError(await h.request('sandbox', 'GET', '/v1/refunds/re_nope', { key: merchant.testKey }), 404, 'not_found', 'id');
  });

  test('live: 503 live_unavailable, nothing stored (not even the key)', async () => {
    const merchant = await h.merchant({ verified: true });
    const res = await refund(merchant, { charge: newId('charge') }, idempotencyKey(), 'live');
    expectError(res, 503, 'live_unavailable');
    expect(await count('refunds', merchant.id)).toBe(0);
    const keys = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from idempotency_keys where merchant_id = ?`, [merchant.id]);
    expect(keys[0].n).toBe('0');
  });
});

describe('idempotency', () => {
  test('the same key and body answers the first refund byte for byte; another body is idempotency_key_reused; one refund', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 10_000);
    const key = idempotencyKey();
    const first = await refund(merchant, { charge: charge.id, amount: 1_000 }, key);
    const again = await refund(merchant, { charge: charge.id, amount: 1_000 }, key);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expectError(await refund(merchant, { charge: charge.id, amount: 2_000 }, key), 422, 'idempotency_key_reused');
    expect(await count('refunds', merchant.id)).toBe(1);
    await completed(merchant, first.json.id);
  });
});

describe('concurrency', () => {
  test('twenty concurrent partial refunds never exceed the charge: the charge lock serialises them', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 50_000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(merchant, { charge: charge.id, amount: 1_000 })));
    const accepted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(accepted).toHaveLength(15);
    for (const r of refused) expectError(r, 422, 'amount_exceeds_refundable', 'amount');
    expect(await count('refunds', merchant.id)).toBe(15);
    expect((await Promise.all(accepted.map((a) => completed(merchant, a.json.id)))).map((r) => r.status)).toEqual(accepted.map(() => 'succeeded'));
    expect((await getCharge(merchant, charge.id)).amount_refunded).toBe(15_000);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: charge.merchantAmount + 50_000 - 15_000, merchant_reserved: 0, refund_clearing: 15_000 });
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });

  test('concurrent refunds of different charges never overdraw the available balance', async () => {
    const merchant = await h.merchant();
    const charges = [];
    for (let i = 0; i < 10; i++) charges.push(await succeededCharge(h, merchant, 2_000));
    // Available: 10 × merchant_amount (< 20 000): full refunds of all ten cannot all be covered.
    const available = (await balanceRows(h, merchant.id)).merchant_available;
    const answers = await Promise.all(charges.map((c) => refund(merchant, { charge: c.id })));
    const accepted = answers.filter((a) => a.status === 200);
    for (const r of answers.filter((a) => a.status !== 200)) expectError(r, 422, 'insufficient_balance', 'amount');
    expect(accepted).toHaveLength(Math.floor(available / 2_000));
    const rows = await balanceRows(h, merchant.id);
    expect(rows.merchant_available).toBeGreaterThanOrEqual(0);
    expect(rows.merchant_available).toBe(available - accepted.length * 2_000);
    await Promise.all(accepted.map((a) => completed(merchant, a.json.id)));
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });
});

describe('GET /v1/refunds', () => {
  test('newest first, cursor and limit, filters status, charge, created_after, created_before; strict', async () => {
    const merchant = await h.merchant();
    const a = await succeededCharge(h, merchant, 15_000, 30_000);
    const b = await succeededCharge(h, merchant, 15_000);
    const ids: string[] = [];
    for (const [charge, outcome] of [[a, 'succeed'], [a, 'declined'], [b, 'succeed']] as const) {
      const res = await refund(merchant, { charge: charge.id, amount: 1_000, metadata: { sandbox_outcome: outcome } });
      ids.push(res.json.id);
      await completed(merchant, res.json.id);
    }
    const list = (query: string) => h.request('sandbox', 'GET', `/v1/refunds${query}`, { key: merchant.testKey });
    const all = await list('');
    expect(all.json).toMatchObject({ object: 'list', has_more: false });
    expect(all.json.data.map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
    const page1 = await list('?limit=2');
    expect(page1.json.has_more).toBe(true);
    const page2 = await list(`?limit=2&cursor=${page1.json.next_cursor}`);
    expect([...page1.json.data, ...page2.json.data].map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
    expect(page2.json).not.toHaveProperty('next_cursor');
    expect((await list('?status=failed')).json.data.map((r: { id: string }) => r.id)).toEqual([ids[1]]);
    expect((await list(`?charge=${b.id}`)).json.data.map((r: { id: string }) => r.id)).toEqual([ids[2]]);
    const firstAt = all.json.data[2].created_at;
    expect((await list(`?created_after=${firstAt}`)).json.data).toHaveLength(2);
    expect((await list(`?created_before=${firstAt}`)).json.data).toHaveLength(0);
    expect((await list('?created_after=2000-01-01')).json.data).toHaveLength(3);
    expectError(await list('?status=reversed'), 400, 'invalid_request', 'status');
    expectError(await list('?charge=re_x'), 400, 'invalid_request', 'charge');
    expectError(await list('?cursor=bogus'), 400, 'invalid_request', 'cursor');
    expectError(await list('?channel=bank'), 400, 'invalid_request', 'channel');
    // Isolation: another merchant sees none of them.
    const other = await h.merchant();
    expect((await h.request('sandbox', 'GET', '/v1/refunds', { key: other.testKey })).json.data).toEqual([]);
  });
});

describe('refund-start relay', () => {
  test('starts the workflow of a refund the API wrote but never started', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant, 15_000, 5_000);
    const scope = { merchantId: merchant.id, environment: 'sandbox' as const, key: idempotencyKey() };
    const now = new Date().toISOString();
    const write = await writeRefundOnce(
      h.orm,
      scope,
      'hash',
      newId('refund'),
      { chargeId: charge.id, amount: 2_500 },
      (id, c, amount) => ({
        id,
        merchantId: merchant.id,
        environment: 'sandbox',
        chargeId: c.id,
        status: 'pending',
        amount,
        currency: c.currency,
        reason: null,
        metadataJson: '{}',
        failureClass: null,
        sandboxOutcome: null,
        createdAt: now,
        updatedAt: now,
      }),
      (r) => ({ status: 200, body: refundJson(r) }),
    );
    if (write.kind !== 'written') throw new Error(write.kind);
    const started = await startUnstartedRefunds({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue, log: h.deps.log, unstartedAfterSeconds: 0 });
    expect(started).toBeGreaterThanOrEqual(1);
    expect((await completed(merchant, write.refund.id)).status).toBe('succeeded');
    expect((await getCharge(merchant, charge.id)).amount_refunded).toBe(2_500);
    // Started once: a second pass finds nothing unstarted.
    const rows = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from refunds where id = ? and workflow_started_at is not null`, [write.refund.id]);
    expect(rows[0].n).toBe('1');
  });
});
