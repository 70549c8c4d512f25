/**
 * Sandbox outcomes (SPEC 3, 4.2), end to end through HTTP against the real Temporal dev server and
 * PostgreSQL: create answer, final state, GET, events, balances and ledger for each outcome.
 * The ten-minute `pending` timeout itself is proven by the time-skipping tests; here it is only
 * shown to stay in flight with its hold.
 */
import { temporal } from '@temporalio/proto';
import { chargeBody, idempotencyKey, SANDBOX_COMPLETION_TIMER, startHarness, type ApiResponse, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { decodedJson } from '../support/payload-codec';
import type { Environment } from '../../src/domain/environment';
import { writeLiveCharge } from '../support/live-charge';

let h: Harness;
/** Workflows left running (pending / indeterminate outcomes); terminated at the end. */
const leftRunning: string[] = [];

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
});
afterAll(async () => {
  for (const id of leftRunning) {
    await h.temporal.client.workflow.getHandle(id).terminate('test finished').catch(() => undefined);
  }
  await h?.close();
});

const EventType = temporal.api.enums.v1.EventType;
const KES_MPESA = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b04';

function create(merchantKey: string, body: Record<string, unknown>, options: { env?: Environment; key?: string } = {}): Promise<ApiResponse> {
  return h.request(options.env ?? 'sandbox', 'POST', '/v1/charges', {
    key: merchantKey,
    body,
    headers: { 'Idempotency-Key': options.key ?? idempotencyKey() },
  });
}

const get = (key: string, id: string, env: Environment = 'sandbox') => h.request(env, 'GET', `/v1/charges/${id}`, { key });
const balances = (key: string, env: Environment = 'sandbox') => h.request(env, 'GET', '/v1/balances', { key });
const eventTypes = async (key: string, env: Environment = 'sandbox') => {
  const res = await h.request(env, 'GET', '/v1/events?after_sequence=0&limit=100', { key });
  expect(res.status).toBe(200);
  return res.json.data as Array<{ type: string; resource_id: string; data: Record<string, unknown> }>;
};

interface LedgerRow {
  transfer_id: string;
  account: string;
  kind: string;
  amount: string;
  environment: string;
}

async function ledgerRows(chargeId: string): Promise<LedgerRow[]> {
  return h.orm.em
    .getConnection()
    .execute<LedgerRow[]>(`select transfer_id, account, kind, amount::text as amount, environment from ledger_entries where resource_id = ? order by transfer_id, account`, [chargeId]);
}

function sumsPerTransfer(rows: LedgerRow[]): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const r of rows) sums[r.transfer_id] = (sums[r.transfer_id] ?? 0) + Number(r.amount);
  return sums;
}

const FAILURE_OUTCOMES = ['insufficient_funds', 'invalid_recipient', 'limit_exceeded', 'declined', 'timeout', 'transport', 'partner_unavailable', 'duplicate'] as const;

describe('immediate failure outcomes', () => {
  test.each(FAILURE_OUTCOMES)('sandbox_outcome %s: accepted, then failed with that failure_class', async (outcome) => {
    const merchant = await h.merchant();
    const created = await create(merchant.testKey, chargeBody({ metadata: { sandbox_outcome: outcome } }));
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ object: 'charge', status: 'awaiting_action', failure_class: null, action: { type: 'prompt' } });
    const id: string = created.json.id;
    expect(id).toMatch(/^txn_/);

    const final = await h.settled(id);
    expect(final.status).toBe('failed');
    expect(final.failureClass).toBe(outcome);

    const fetched = await get(merchant.testKey, id);
    expect(fetched.status).toBe(200);
    expect(fetched.json).toMatchObject({ id, status: 'failed', failure_class: outcome, amount: 15000, merchant_amount: created.json.merchant_amount });
    expect(fetched.json.metadata).toEqual({ sandbox_outcome: outcome });

    const events = await eventTypes(merchant.testKey);
    expect(events.map((e) => [e.type, e.resource_id])).toEqual([
      ['transaction.created', id],
      ['transaction.failed', id],
    ]);
    expect(events[0].data).toMatchObject({ status: 'awaiting_action', failure_class: null });
    expect(events[1].data).toMatchObject({ status: 'failed', failure_class: outcome });

    // The hold is released and nothing reaches the available balance.
    const bal = await balances(merchant.testKey);
    expect(bal.json).toEqual({
      object: 'balance',
      livemode: false,
      available: [{ currency: 'GHS', amount: 0 }],
      pending: [{ currency: 'GHS', amount: 0 }],
      reserved: [{ currency: 'GHS', amount: 0 }],
    });

    const rows = await ledgerRows(id);
    expect(Object.values(sumsPerTransfer(rows)).every((s) => s === 0)).toBe(true);
    expect(rows.map((r) => r.kind).sort()).toEqual(['hold', 'hold', 'hold_void', 'hold_void']);
    expect(rows.some((r) => r.account === 'merchant_available')).toBe(false);
  });
});

describe('indeterminate', () => {
  let merchant: TestMerchant;
  let first: ApiResponse;
  const key = idempotencyKey();
  const body = chargeBody({ metadata: { sandbox_outcome: 'indeterminate' }, reference: 'order-indeterminate' });

  beforeAll(async () => {
    merchant = await h.merchant();
    first = await create(merchant.testKey, body, { key });
    if (first.json?.error?.transaction_id) leftRunning.push(first.json.error.transaction_id);
  });

  test('create answers 504 partner_timeout with the transaction id', () => {
    expect(first.status).toBe(504);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.json.error).toMatchObject({ code: 'partner_timeout', type: expect.any(String), message: expect.any(String) });
    expect(first.json.error.transaction_id).toMatch(/^txn_/);
    expect(first.json.error.request_id).toMatch(/^req_/);
    expect(first.json.error.failure_class).toBeUndefined();
  });

  test('the 504 body names the same request id as the Request-Id header', () => {
    expect(first.status).toBe(504);
    expect(first.json.error.request_id).toBe(first.headers.get('request-id'));
  });

  test('the charge exists, unresolved, with its hold', async () => {
    const id = first.json.error.transaction_id;
    const fetched = await get(merchant.testKey, id);
    expect(fetched.status).toBe(200);
    expect(['pending', 'awaiting_action']).toContain(fetched.json.status);
    expect(fetched.json).toMatchObject({ id, object: 'charge', failure_class: null, your_reference: 'order-indeterminate' });

    const bal = await balances(merchant.testKey);
    expect(bal.json.pending).toEqual([{ currency: 'GHS', amount: fetched.json.merchant_amount }]);
    expect(bal.json.available).toEqual([{ currency: 'GHS', amount: 0 }]);

    const description = await h.temporal.client.workflow.getHandle(id).describe();
    expect(description.status.name).toBe('RUNNING');
  });

  test('a repeat with the same key returns the same 504 bytes, replayed, and creates nothing', async () => {
    const again = await create(merchant.testKey, body, { key });
    expect(again.status).toBe(504);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);

    const count = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from charges where merchant_id = ?`, [merchant.id]);
    expect(count[0].n).toBe('1');
    const events = await eventTypes(merchant.testKey);
    expect(events.map((e) => e.type)).toEqual(['transaction.created']);
  });
});

test('pending: stays in flight and the pending balance holds merchant_amount', async () => {
  const merchant = await h.merchant();
  const created = await create(merchant.testKey, chargeBody({ metadata: { sandbox_outcome: 'pending' } }));
  expect(created.status).toBe(200);
  const id: string = created.json.id;
  leftRunning.push(id);
  expect(created.json.status).toBe('awaiting_action');

  // The workflow is durably waiting (ten-minute timer), not finished.
  const description = await h.temporal.client.workflow.getHandle(id).describe();
  expect(description.status.name).toBe('RUNNING');

  const fetched = await get(merchant.testKey, id);
  expect(['pending', 'awaiting_action']).toContain(fetched.json.status);
  expect(fetched.json.failure_class).toBeNull();

  const bal = await balances(merchant.testKey);
  expect(bal.json.pending).toEqual([{ currency: 'GHS', amount: created.json.merchant_amount }]);
  expect(bal.json.available).toEqual([{ currency: 'GHS', amount: 0 }]);
  expect((await eventTypes(merchant.testKey)).map((e) => e.type)).toEqual(['transaction.created']);
});

// Without a sandbox_outcome, card and bank charges wait for hosted checkout (test/integration/checkout.test.ts).
test('card channel with sandbox_outcome succeed: created pending with no action (no checkout), then succeeds', async () => {
  const merchant = await h.merchant();
  const created = await create(
    merchant.testKey,
    chargeBody({ channel: 'card', momo_network_id: undefined, currency: 'USD', amount: 10000, customer: { identifier: '4242424242424242', name: 'Kofi' }, metadata: { sandbox_outcome: 'succeed' } }),
  );
  expect(created.status).toBe(200);
  expect(created.json).toMatchObject({ status: 'pending', action: null, channel: 'card', currency: 'USD', fee: { platform: 290, tax: 44, bearer: 'merchant' }, merchant_amount: 9666 });
  expect(created.json.customer).toEqual({ masked: '424242******4242', name: 'Kofi' });
  expect((await h.settled(created.json.id)).status).toBe('succeeded');
  expect((await balances(merchant.testKey)).json).toMatchObject({ available: [{ currency: 'USD', amount: 9666 }], pending: [{ currency: 'USD', amount: 0 }] });
});

test('bank channel with sandbox_outcome succeed: created pending, then succeeds', async () => {
  const merchant = await h.merchant();
  const created = await create(merchant.testKey, chargeBody({ channel: 'bank', momo_network_id: undefined, amount: 20000, customer: { identifier: 'GH0012345678', name: 'Esi' }, metadata: { sandbox_outcome: 'succeed' } }));
  expect(created.status).toBe(200);
  expect(created.json).toMatchObject({ status: 'pending', action: null, channel: 'bank', fee: { platform: 200, tax: 30 }, merchant_amount: 19770 });
  expect((await h.settled(created.json.id)).status).toBe('succeeded');
  const fetched = await get(merchant.testKey, created.json.id);
  expect(fetched.json.status).toBe('succeeded');
});

test.each(['succeed', 'no-such-outcome'])('sandbox_outcome %s: succeeds (unrecognised values succeed)', async (outcome) => {
  const merchant = await h.merchant();
  const created = await create(merchant.testKey, chargeBody({ metadata: { sandbox_outcome: outcome } }));
  expect(created.status).toBe(200);
  expect(created.json.status).toBe('awaiting_action');
  const final = await h.settled(created.json.id);
  expect(final.status).toBe('succeeded');
  expect(final.failureClass).toBeNull();
  const events = await eventTypes(merchant.testKey);
  expect(events.map((e) => e.type)).toEqual(['transaction.created', 'transaction.succeeded']);
  expect(events[1].data).toMatchObject({ status: 'succeeded', failure_class: null, metadata: { sandbox_outcome: outcome } });
});

test('succeeded charge, in real time: its completion timer fires by itself; every ledger transfer balances and merchant_available gets merchant_amount', async () => {
  const merchant = await h.merchant();
  const created = await create(merchant.testKey, chargeBody({ amount: 12345, currency: 'KES', momo_network_id: KES_MPESA }));
  expect(created.status).toBe(200);
  // The one charge test of the suite that waits out the sandbox's three seconds: every other
  // `settled` fires this timer through the advance endpoint, found by its summary (checked here).
  expect((await h.settled(created.json.id, { realTime: true })).status).toBe('succeeded');
  const events = (await h.temporal.client.workflow.getHandle(created.json.id).fetchHistory()).events ?? [];
  const timers = events.filter((e) => e.timerStartedEventAttributes);
  expect(await Promise.all(timers.map((e) => (e.userMetadata?.summary ? decodedJson(e.userMetadata.summary) : null)))).toEqual([SANDBOX_COMPLETION_TIMER]);
  expect(events.map((e) => e.eventType)).toContain(EventType.EVENT_TYPE_TIMER_FIRED);
  expect(events.map((e) => e.eventType)).not.toContain(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);

  const rows = await ledgerRows(created.json.id);
  const sums = sumsPerTransfer(rows);
  expect(Object.keys(sums).sort()).toEqual([`${created.json.id}:capture`, `${created.json.id}:hold`, `${created.json.id}:hold_void`]);
  for (const sum of Object.values(sums)) expect(sum).toBe(0);
  const available = rows.filter((r) => r.account === 'merchant_available');
  expect(available).toHaveLength(1);
  expect(Number(available[0].amount)).toBe(created.json.merchant_amount);
  const fees = rows.filter((r) => r.transfer_id.endsWith(':capture') && (r.account === 'platform_fee' || r.account === 'tax'));
  expect(fees.map((r) => [r.account, Number(r.amount)]).sort()).toEqual(
    [
      ['platform_fee', created.json.fee.platform],
      ['tax', created.json.fee.tax],
    ].sort(),
  );
  expect(created.json.merchant_amount).toBe(12345 - created.json.fee.platform - created.json.fee.tax);

  expect((await balances(merchant.testKey)).json).toMatchObject({
    available: [{ currency: 'KES', amount: created.json.merchant_amount }],
    pending: [{ currency: 'KES', amount: 0 }],
  });
});

describe('live', () => {
  test('a verified merchant’s live charge: 503 live_unavailable (no live rail), nothing created, no balance moved', async () => {
    const merchant = await h.merchant({ verified: true });
    const refused = await create(merchant.liveKey, chargeBody(), { env: 'live' });
    expect(refused.status).toBe(503);
    expect(refused.json.error).toMatchObject({ type: 'api_error', code: 'live_unavailable' });
    const count = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from charges where merchant_id = ?`, [merchant.id]);
    expect(count[0].n).toBe('0');
    expect((await balances(merchant.liveKey, 'live')).json).toEqual({ object: 'balance', livemode: true, available: [], pending: [], reserved: [] });
  });

  test('a live charge written before the API refused them never succeeds through the simulator: failed partner_unavailable, live only', async () => {
    const merchant = await h.merchant({ verified: true });
    const written = await writeLiveCharge(h, merchant, { metadata: { sandbox_outcome: 'succeed' } });
    const final = await h.settled(written.id);
    expect(final).toMatchObject({ status: 'failed', failureClass: 'partner_unavailable', environment: 'live' });
    expect((await get(merchant.liveKey, written.id, 'live')).json).toMatchObject({ status: 'failed', failure_class: 'partner_unavailable', livemode: true });
    expect((await get(merchant.testKey, written.id, 'sandbox')).status).toBe(404);
    expect((await balances(merchant.liveKey, 'live')).json).toEqual({
      object: 'balance',
      livemode: true,
      available: [{ currency: 'GHS', amount: 0 }],
      pending: [{ currency: 'GHS', amount: 0 }],
      reserved: [{ currency: 'GHS', amount: 0 }],
    });
    expect((await eventTypes(merchant.testKey)).length).toBe(0);
    expect((await eventTypes(merchant.liveKey, 'live')).map((e) => e.type)).toEqual(['transaction.created', 'transaction.failed']);
    const rows = await ledgerRows(written.id);
    expect(rows.every((r) => r.environment === 'live')).toBe(true);
  });

  test('an unverified merchant’s live charge is refused and nothing is created', async () => {
    const merchant = await h.merchant();
    const refused = await create(merchant.liveKey, chargeBody(), { env: 'live' });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('identity_verification_required');
    const count = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*)::text as n from charges where merchant_id = ?`, [merchant.id]);
    expect(count[0].n).toBe('0');
  });
});
