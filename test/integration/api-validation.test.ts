import { randomUUID } from 'node:crypto';
import { countRows } from '../support/db-counts';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { expectError } from '../support/api-errors';

/**
 * Input validation of the public API (SPEC 2.1, 4.2, 4.10, 7; INTERFACE "Errors", "Idempotency"):
 * every bad request is answered with the documented envelope and the right status, and changes
 * nothing in the database.
 */

let h: Harness;
/** Never gets a charge: its row counts must stay zero through every rejected request. */
let quiet: TestMerchant;
/** Used by the tests that do create charges (each waits for its charges to settle). */
let busy: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  [quiet, busy] = await Promise.all([h.merchant(), h.merchant({ verified: true })]);
});
afterAll(() => h?.close());


function without(body: Record<string, unknown>, ...fields: string[]): Record<string, unknown> {
  const copy = { ...body };
  for (const f of fields) delete copy[f];
  return copy;
}

async function rowsFor(chargeId: string): Promise<number> {
  const rows = await h.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from charges where id = ?', [chargeId]);
  return Number(rows[0].n);
}

function postCharge(key: string, body: unknown, idemKey: string | null = idempotencyKey(), env: 'sandbox' | 'live' = 'sandbox') {
  return h.request(env, 'POST', '/v1/charges', { key, body, headers: idemKey === null ? {} : { 'Idempotency-Key': idemKey } });
}

interface BadCharge {
  name: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** false: send no Idempotency-Key header at all. */
  withKey?: boolean;
  status: number;
  code: string;
  param: string | null;
}

const UNKNOWN_NETWORK = randomUUID();
const MPESA_KE = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b04';

const badCharges: BadCharge[] = [
  { name: 'amount 0', body: chargeBody({ amount: 0 }), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'amount -5', body: chargeBody({ amount: -5 }), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'amount 10.5 (no decimal amounts)', body: chargeBody({ amount: 10.5 }), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'amount "100" (a string)', body: chargeBody({ amount: '100' }), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'amount 2^53 (not exactly representable)', rawBody: JSON.stringify(chargeBody({ amount: 0 })).replace('"amount":0', '"amount":9007199254740992'), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'amount 1e300', rawBody: JSON.stringify(chargeBody({ amount: 0 })).replace('"amount":0', '"amount":1e300'), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'amount missing', body: without(chargeBody(), 'amount'), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'unknown currency XYZ', body: chargeBody({ currency: 'XYZ' }), status: 400, code: 'invalid_request', param: 'currency' },
  { name: 'lower-case currency ghs', body: chargeBody({ currency: 'ghs' }), status: 400, code: 'invalid_request', param: 'currency' },
  { name: 'currency KES with an MTN Ghana network', body: chargeBody({ currency: 'KES', momo_network_id: MTN_GH }), status: 400, code: 'invalid_request', param: 'currency' },
  { name: 'currency GHS with a Kenyan network', body: chargeBody({ currency: 'GHS', momo_network_id: MPESA_KE }), status: 400, code: 'invalid_request', param: 'currency' },
  { name: 'momo_network_id a UUID not in the list', body: chargeBody({ momo_network_id: UNKNOWN_NETWORK }), status: 400, code: 'invalid_request', param: 'momo_network_id' },
  { name: 'momo_network_id not a UUID (a network name)', body: chargeBody({ momo_network_id: 'mtn-gh' }), status: 400, code: 'invalid_request', param: 'momo_network_id' },
  { name: 'mobile_money without momo_network_id', body: without(chargeBody(), 'momo_network_id'), status: 400, code: 'invalid_request', param: 'momo_network_id' },
  { name: 'momo_network_id with channel card', body: chargeBody({ channel: 'card' }), status: 400, code: 'invalid_request', param: 'momo_network_id' },
  { name: 'unknown channel', body: without(chargeBody({ channel: 'crypto' }), 'momo_network_id'), status: 400, code: 'invalid_request', param: 'channel' },
  { name: 'customer missing', body: without(chargeBody(), 'customer'), status: 400, code: 'invalid_request', param: 'customer' },
  { name: 'customer.identifier missing', body: chargeBody({ customer: { name: 'Ama Mensah' } }), status: 400, code: 'invalid_request', param: 'customer.identifier' },
  { name: 'unknown top-level field', body: chargeBody({ livemode: true }), status: 400, code: 'invalid_request', param: 'livemode' },
  { name: 'unknown customer field', body: chargeBody({ customer: { identifier: '233241234567', email: 'a@b.c' } }), status: 400, code: 'invalid_request', param: 'customer.email' },
  { name: 'metadata a string', body: chargeBody({ metadata: 'order-1' }), status: 400, code: 'invalid_request', param: 'metadata' },
  { name: 'metadata an array', body: chargeBody({ metadata: ['order-1'] }), status: 400, code: 'invalid_request', param: 'metadata' },
  { name: 'malformed JSON', rawBody: '{"amount": 15000, "currency": "GHS"', status: 400, code: 'invalid_request', param: null },
  { name: 'a JSON array body', rawBody: JSON.stringify([chargeBody()]), status: 400, code: 'invalid_request', param: null },
  { name: 'a JSON string body', rawBody: '"hello"', status: 400, code: 'invalid_request', param: null },
  { name: 'wrong Content-Type (text/plain)', rawBody: JSON.stringify(chargeBody()), headers: { 'content-type': 'text/plain' }, status: 400, code: 'invalid_request', param: null },
  {
    name: 'body over 64 KiB',
    body: chargeBody({ metadata: { pad: 'x'.repeat(70 * 1024) } }),
    status: 413,
    code: 'request_too_large',
    param: null,
  },
  { name: 'Idempotency-Key missing', body: chargeBody(), withKey: false, status: 400, code: 'idempotency_key_required', param: null },
  { name: 'Idempotency-Key over 255 characters', body: chargeBody(), headers: { 'Idempotency-Key': 'k'.repeat(256) }, status: 400, code: 'invalid_request', param: 'Idempotency-Key' },
];

describe('POST /v1/charges refuses bad input and writes nothing', () => {
  test.each(badCharges)('$name → $status $code', async (row) => {
    const before = await countRows(h.orm, quiet.id);
    const headers: Record<string, string> = { ...(row.withKey === false ? {} : { 'Idempotency-Key': idempotencyKey() }), ...row.headers };
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: quiet.testKey, body: row.body, rawBody: row.rawBody, headers });
    expectError(res, row.status, row.code, row.param);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    const after = await countRows(h.orm, quiet.id);
    expect(after).toEqual(before);
    expect(after).toEqual({ charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 });
  });

  test('the 64 KiB limit is inclusive: exactly 65536 bytes is accepted, one more byte is 413', async () => {
    // Padded with insignificant whitespace: a metadata value is at most 500 characters (issue 9).
    const pad = (size: number) => {
      const base = JSON.stringify(chargeBody({ metadata: { pad: '' } }));
      const body = base + ' '.repeat(size - base.length);
      expect(Buffer.byteLength(body)).toBe(size);
      return body;
    };
    const before = await countRows(h.orm, busy.id);
    const over = await h.request('sandbox', 'POST', '/v1/charges', { key: busy.testKey, rawBody: pad(64 * 1024 + 1), headers: { 'Idempotency-Key': idempotencyKey() } });
    expectError(over, 413, 'request_too_large', null);
    expect(await countRows(h.orm, busy.id)).toEqual(before);

    const exact = await h.request('sandbox', 'POST', '/v1/charges', { key: busy.testKey, rawBody: pad(64 * 1024), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(exact.status).toBe(200);
    expect(exact.json.metadata).toEqual({ pad: '' });
    expect((await h.settled(exact.json.id)).status).toBe('succeeded');
  });
});

describe('Idempotency-Key', () => {
  test('the same key with a different body is 422 idempotency_key_reused and creates nothing', async () => {
    const key = idempotencyKey();
    const first = await postCharge(busy.testKey, chargeBody({ reference: 'reuse-1' }), key);
    expect(first.status).toBe(200);
    await h.settled(first.json.id); // nothing in flight: every count below is stable
    const before = await countRows(h.orm, busy.id);

    for (const different of [chargeBody({ reference: 'reuse-1', amount: 15001 }), chargeBody({ reference: 'reuse-2' }), without(chargeBody({ reference: 'reuse-1' }), 'description')]) {
      const reused = await postCharge(busy.testKey, different, key);
      expectError(reused, 422, 'idempotency_key_reused', null);
      expect(reused.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await countRows(h.orm, busy.id)).toEqual(before);

    // The stored first answer is untouched by the refused reuses.
    const replay = await postCharge(busy.testKey, chargeBody({ reference: 'reuse-1' }), key);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
  });

  test('a sequential repeat with the same key and body returns the first answer byte for byte, marked Idempotent-Replayed', async () => {
    const key = idempotencyKey();
    const body = chargeBody({ reference: 'replay-1', metadata: { order: 'R-1' } });
    const first = await postCharge(busy.testKey, body, key);
    expect(first.status).toBe(200);
    expect(first.json.status).toBe('awaiting_action');
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const second = await postCharge(busy.testKey, body, key);
    expect(second.status).toBe(first.status);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);

    // Even after the charge has moved on, the key answers with the first answer, not the current state.
    expect((await h.settled(first.json.id)).status).toBe('succeeded');
    const third = await postCharge(busy.testKey, body, key);
    expect(third.status).toBe(200);
    expect(third.text).toBe(first.text);
    expect(third.headers.get('idempotent-replayed')).toBe('true');

    expect(await rowsFor(first.json.id)).toBe(1);
    const keys = await h.orm.em
      .getConnection()
      .execute<{ n: number }[]>('select count(*)::int as n from idempotency_keys where merchant_id = ? and key = ?', [busy.id, key]);
    expect(Number(keys[0].n)).toBe(1);
  });

  test('a rejected request does not burn the key: a later valid request with it creates the charge', async () => {
    const key = idempotencyKey();
    const before = await countRows(h.orm, busy.id);

    const schemaRejected = await postCharge(busy.testKey, chargeBody({ amount: 0 }), key);
    expectError(schemaRejected, 400, 'invalid_request', 'amount');
    const referenceRejected = await postCharge(busy.testKey, chargeBody({ currency: 'XYZ' }), key);
    expectError(referenceRejected, 400, 'invalid_request', 'currency');
    expect(await countRows(h.orm, busy.id)).toEqual(before);

    const valid = await postCharge(busy.testKey, chargeBody({ reference: 'after-reject' }), key);
    expect(valid.status).toBe(200);
    expect(valid.json).toMatchObject({ object: 'charge', your_reference: 'after-reject', status: 'awaiting_action' });
    expect(valid.headers.get('idempotent-replayed')).toBeNull();
    expect((await h.settled(valid.json.id)).status).toBe('succeeded');
  });

  test('keys are scoped by merchant and environment: the same key elsewhere is a fresh request', async () => {
    const key = idempotencyKey();
    const other = await h.merchant();
    const body = chargeBody({ reference: 'scoped' });
    const [sandboxA, sandboxB] = await Promise.all([postCharge(busy.testKey, body, key), postCharge(other.testKey, body, key)]);
    for (const res of [sandboxA, sandboxB]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(new Set([sandboxA.json.id, sandboxB.json.id]).size).toBe(2);
    await Promise.all([sandboxA, sandboxB].map((r) => h.settled(r.json.id)));
    // Live moves no money without a live rail: 503 live_unavailable, and the key is not even claimed there.
    const liveA = await postCharge(busy.liveKey, body, key, 'live');
    expect(liveA.status).toBe(503);
    expect(liveA.json.error.code).toBe('live_unavailable');
  });
});

describe('GET validation', () => {
  test('GET /v1/charges/{unknown id} is 404 not_found', async () => {
    for (const id of ['txn_unknown', 'txn_000000000000000000000000', 'not-a-charge-id']) {
      const res = await h.request('sandbox', 'GET', `/v1/charges/${id}`, { key: quiet.testKey });
      expectError(res, 404, 'not_found', 'id');
    }
  });

  test('an unknown /v1 route is 404 not_found in the envelope', async () => {
    const res = await h.request('sandbox', 'GET', '/v1/no-such-thing', { key: quiet.testKey });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
    expect(res.json.error.request_id).toMatch(/^req_/);
  });

  test('GET /v1/events with both after_sequence and cursor is 400', async () => {
    const page = await h.request('sandbox', 'GET', '/v1/events', { key: quiet.testKey });
    expect(page.status).toBe(200);
    const res = await h.request('sandbox', 'GET', '/v1/events?after_sequence=0&cursor=c2VxOjE', { key: quiet.testKey });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_request');
    expect(['after_sequence', 'cursor']).toContain(res.json.error.param);
    expectError(res, 400, 'invalid_request', res.json.error.param);
  });

  test.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['after_sequence=-1', 'after_sequence'],
    ['after_sequence=abc', 'after_sequence'],
    ['cursor=not%20a%20cursor', 'cursor'],
    ['starting_after=evt_1', 'starting_after'],
    ['after_sequence=0&sort=asc', 'sort'],
  ])('GET /v1/events?%s is 400 invalid_request on %s', async (query, param) => {
    const res = await h.request('sandbox', 'GET', `/v1/events?${query}`, { key: quiet.testKey });
    expectError(res, 400, 'invalid_request', param);
  });

  test.each(['limit=1', 'limit=100', 'after_sequence=0&limit=100'])('GET /v1/events?%s (a limit within 1–100) is 200', async (query) => {
    const res = await h.request('sandbox', 'GET', `/v1/events?${query}`, { key: quiet.testKey });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ object: 'list', data: [], has_more: false });
  });
});
