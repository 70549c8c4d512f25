import { createHash } from 'node:crypto';
import { issueKey, revokeKey, verifyMerchant } from '../../src/persistence/merchants/merchant-store';
import { countRows } from '../support/db-counts';
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { expectError } from '../support/api-errors';
import { writeLiveCharge } from '../support/live-charge';

/**
 * Authentication, authorisation and isolation (SPEC 5, 7; INTERFACE "Errors", "Scopes"): bearer keys,
 * the listener's environment, scopes, identity verification for live, and that one merchant or
 * environment never sees or moves another's data.
 */

let h: Harness;
let merchant: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  merchant = await h.merchant({ verified: true });
});
afterAll(() => h?.close());


/**
 * Another merchant's or environment's charge is answered exactly like one that does not exist: the
 * same 404 envelope (code, type, param, message apart from the id), so existence does not leak.
 */
async function expectInvisible(env: 'sandbox' | 'live', key: string, chargeId: string): Promise<void> {
  const res = await h.request(env, 'GET', `/v1/charges/${chargeId}`, { key });
  expectError(res, 404, 'not_found', 'id');
  const unknownId = `txn_${'0'.repeat(chargeId.length - 4)}`;
  const unknown = await h.request(env, 'GET', `/v1/charges/${unknownId}`, { key });
  const shape = (r: ApiResponse, id: string) => ({ ...r.json.error, message: r.json.error.message.replaceAll(id, '<id>'), request_id: undefined });
  expect(shape(res, chargeId)).toEqual(shape(unknown, unknownId));
}

function postCharge(env: 'sandbox' | 'live', key: string, body = chargeBody(), idemKey = idempotencyKey()) {
  return h.request(env, 'POST', '/v1/charges', { key, body, headers: { 'Idempotency-Key': idemKey } });
}

async function sequences(env: 'sandbox' | 'live', key: string): Promise<Array<[number, string, string]>> {
  const res = await h.request(env, 'GET', '/v1/events?after_sequence=0&limit=100', { key });
  expect(res.status).toBe(200);
  return res.json.data.map((e: { sequence: number; type: string; resource_id: string }) => [e.sequence, e.type, e.resource_id]);
}

describe('401 invalid_api_key', () => {
  const cases: Array<[string, () => string | undefined]> = [
    ['no Authorization header', () => undefined],
    ['"Bearer" without a key', () => 'Bearer'],
    ['an unknown sandbox key', () => 'Bearer svc_test_0000000000000000000000000000000000'],
    ['an unknown live-prefixed key (unknown beats environment_mismatch)', () => 'Bearer svc_live_0000000000000000000000000000000000'],
    ['a key without any known prefix', () => 'Bearer sk_test_abc123'],
    ['the real key with one extra character', () => `Bearer ${merchant.testKey}x`],
    ['the real key truncated', () => `Bearer ${merchant.testKey.slice(0, -1)}`],
    ['the Basic scheme carrying the real key', () => `Basic ${Buffer.from(`${merchant.testKey}:`).toString('base64')}`],
    ['the real key with no scheme', () => merchant.testKey],
    ['another scheme ("Token")', () => `Token ${merchant.testKey}`],
    ['two keys', () => `Bearer ${merchant.testKey} ${merchant.testKey}`],
  ];

  test.each(cases)('%s', async (_name, header) => {
    const value = header();
    const headers: Record<string, string> = value === undefined ? {} : { authorization: value };
    const before = await countRows(h.orm, merchant.id);
    for (const [method, path, body] of [
      ['GET', '/v1/balances', undefined],
      ['GET', '/v1/events', undefined],
      ['POST', '/v1/charges', chargeBody()],
    ] as const) {
      const res = await h.request('sandbox', method, path, { body, headers: { ...headers, 'Idempotency-Key': idempotencyKey() } });
      expectError(res, 401, 'invalid_api_key');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect(await countRows(h.orm, merchant.id)).toEqual(before);
  });

  test('a revoked key is 401 on both listeners; the merchant’s other keys keep working', async () => {
    const issued = await issueKey(h.orm, merchant.id, 'sandbox', ['balances:read', 'charges:write']);
    expect((await h.request('sandbox', 'GET', '/v1/balances', { key: issued.secret })).status).toBe(200);

    const revoked = await revokeKey(h.orm, issued.id);
    expect(revoked.id).toBe(issued.id);

    const before = await countRows(h.orm, merchant.id);
    expectError(await h.request('sandbox', 'GET', '/v1/balances', { key: issued.secret }), 401, 'invalid_api_key');
    expectError(await postCharge('sandbox', issued.secret), 401, 'invalid_api_key');
    // A revoked key is not a key at all: 401, not environment_mismatch, on the other listener too.
    expectError(await h.request('live', 'GET', '/v1/balances', { key: issued.secret }), 401, 'invalid_api_key');
    expect(await countRows(h.orm, merchant.id)).toEqual(before);

    expect((await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey })).status).toBe(200);
    expect((await h.request('live', 'GET', '/v1/balances', { key: merchant.liveKey })).status).toBe(200);
  });

  test('the Bearer scheme name is case-insensitive (RFC 9110)', async () => {
    const res = await h.request('sandbox', 'GET', '/v1/balances', { headers: { authorization: `bearer ${merchant.testKey}` } });
    expect(res.status).toBe(200);
    expect(res.json.object).toBe('balance');
  });
});

describe('403 environment_mismatch', () => {
  test.each([
    ['a test key on the live listener', 'live', () => merchant.testKey],
    ['a live key on the sandbox listener', 'sandbox', () => merchant.liveKey],
  ] as const)('%s', async (_name, env, key) => {
    const before = await countRows(h.orm, merchant.id);
    for (const [method, path, body] of [
      ['GET', '/v1/balances', undefined],
      ['GET', '/v1/events?after_sequence=0', undefined],
      ['GET', '/v1/charges/txn_unknown', undefined],
      ['GET', '/v1/reference/momo-networks', undefined],
      ['POST', '/v1/charges', chargeBody()],
    ] as const) {
      const res = await h.request(env, method, path, { key: key(), body, headers: { 'Idempotency-Key': idempotencyKey() } });
      expectError(res, 403, 'environment_mismatch');
    }
    expect(await countRows(h.orm, merchant.id)).toEqual(before);
  });
});

describe('403 insufficient_scope', () => {
  test('a charges:read key cannot create charges or read balances or events, but can read a charge', async () => {
    const readOnly = await issueKey(h.orm, merchant.id, 'sandbox', ['charges:read']);
    const created = await postCharge('sandbox', merchant.testKey, chargeBody({ reference: 'scope-check' }));
    expect(created.status).toBe(200);
    await h.settled(created.json.id); // nothing in flight while counting
    const before = await countRows(h.orm, merchant.id);

    expectError(await postCharge('sandbox', readOnly.secret), 403, 'insufficient_scope');
    expectError(await h.request('sandbox', 'GET', '/v1/balances', { key: readOnly.secret }), 403, 'insufficient_scope');
    expectError(await h.request('sandbox', 'GET', '/v1/events', { key: readOnly.secret }), 403, 'insufficient_scope');
    expectError(await h.request('sandbox', 'GET', '/v1/reference/momo-networks', { key: readOnly.secret }), 403, 'insufficient_scope');
    expect(await countRows(h.orm, merchant.id)).toEqual(before);

    const read = await h.request('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key: readOnly.secret });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ id: created.json.id, object: 'charge', status: 'succeeded' });
  });

  test('a balances:read key cannot read charges', async () => {
    const balancesOnly = await issueKey(h.orm, merchant.id, 'sandbox', ['balances:read']);
    expect((await h.request('sandbox', 'GET', '/v1/balances', { key: balancesOnly.secret })).status).toBe(200);
    expectError(await h.request('sandbox', 'GET', '/v1/charges/txn_unknown', { key: balancesOnly.secret }), 403, 'insufficient_scope');
  });
});

describe('identity verification', () => {
  test('an unverified merchant gets 403 identity_verification_required for a live charge; verified, 503 live_unavailable; nothing written', async () => {
    const unverified = await h.merchant();
    const key = idempotencyKey();
    const body = chargeBody({ reference: 'kyc-1' });
    const none = { charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 };

    const refused = await postCharge('live', unverified.liveKey, body, key);
    expectError(refused, 403, 'identity_verification_required');
    expect(await countRows(h.orm, unverified.id)).toEqual(none);

    // The sandbox needs no identity verification (SPEC 1).
    const sandbox = await postCharge('sandbox', unverified.testKey, body);
    expect(sandbox.status).toBe(200);

    await verifyMerchant(h.orm, unverified.id);
    // No live rail exists: the live listener moves no money, with a clear message; it stores nothing,
    // not even the Idempotency-Key (and a bad body is not looked at).
    for (const attempt of [body, { amount: 'not-a-number' }]) {
      const unavailable = await postCharge('live', unverified.liveKey, attempt, key);
      expectError(unavailable, 503, 'live_unavailable');
      expect(unavailable.json.error.message).toMatch(/no live payment rail is connected, so no money can move\. Nothing was created/);
    }
    expect(await countRows(h.orm, unverified.id, 'live')).toEqual(none);

    expect(await h.settled(sandbox.json.id)).toMatchObject({ status: 'succeeded', environment: 'sandbox', merchantId: unverified.id });
  });
});

describe('isolation', () => {
  test('merchant B gets 404 for merchant A’s charge, and sees none of A’s events or balance', async () => {
    const [a, b] = await Promise.all([h.merchant({ verified: true }), h.merchant({ verified: true })]);
    const created = await postCharge('sandbox', a.testKey);
    expect(created.status).toBe(200);
    const id = created.json.id as string;

    await expectInvisible('sandbox', b.testKey, id);
    await expectInvisible('live', b.liveKey, id);
    await h.settled(id);

    // Still invisible once settled; A sees it (positive control).
    await expectInvisible('sandbox', b.testKey, id);
    expect((await h.request('sandbox', 'GET', `/v1/charges/${id}`, { key: a.testKey })).json.status).toBe('succeeded');
    expect(await sequences('sandbox', a.testKey)).toEqual([
      [1, 'transaction.created', id],
      [2, 'transaction.succeeded', id],
    ]);
    expect(await sequences('sandbox', b.testKey)).toEqual([]);
    const newestFirst = await h.request('sandbox', 'GET', '/v1/events', { key: b.testKey });
    expect(newestFirst.json).toEqual({ object: 'list', data: [], has_more: false });
    const bBalance = await h.request('sandbox', 'GET', '/v1/balances', { key: b.testKey });
    expect([...bBalance.json.available, ...bBalance.json.pending].every((x: { amount: number }) => x.amount === 0)).toBe(true);
    expect(await countRows(h.orm, b.id)).toEqual({ charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 });
  });

  test('a sandbox charge is invisible from the live listener and moves no live balance or live event', async () => {
    const a = await h.merchant({ verified: true });
    const created = await postCharge('sandbox', a.testKey);
    expect(created.status).toBe(200);
    const id = created.json.id as string;
    await expectInvisible('live', a.liveKey, id);
    await h.settled(id);

    await expectInvisible('live', a.liveKey, id);
    const sandboxBalance = await h.request('sandbox', 'GET', '/v1/balances', { key: a.testKey });
    expect(sandboxBalance.json).toEqual({ object: 'balance', livemode: false, available: [{ currency: 'GHS', amount: 14741 }], pending: [{ currency: 'GHS', amount: 0 }], reserved: [{ currency: 'GHS', amount: 0 }] });

    const liveBalance = await h.request('live', 'GET', '/v1/balances', { key: a.liveKey });
    expect(liveBalance.status).toBe(200);
    expect(liveBalance.json.livemode).toBe(true);
    expect([...liveBalance.json.available, ...liveBalance.json.pending].every((x: { amount: number }) => x.amount === 0)).toBe(true);
    expect(await sequences('live', a.liveKey)).toEqual([]);
    expect(await countRows(h.orm, a.id, 'live')).toEqual({ charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 });
    expect((await countRows(h.orm, a.id, 'sandbox')).charges).toBe(1);
  });

  test('event sequences are per merchant and environment: each starts at 1', async () => {
    const [a, b] = await Promise.all([h.merchant({ verified: true }), h.merchant({ verified: true })]);
    // The live listener refuses money movement (no live rail): the live charge is written directly,
    // as the API would write it (test/support/live-charge.ts); without a rail it fails at once.
    const [aSandbox, aLive, bSandbox] = await Promise.all([
      postCharge('sandbox', a.testKey, chargeBody({ reference: 'a-sandbox' })),
      writeLiveCharge(h, a, { reference: 'a-live' }),
      postCharge('sandbox', b.testKey, chargeBody({ reference: 'b-sandbox' })),
    ]);
    for (const res of [aSandbox, bSandbox]) expect(res.status).toBe(200);
    await Promise.all([aSandbox.json.id, aLive.id, bSandbox.json.id].map((id) => h.settled(id)));

    const lifecycle = (id: string, end = 'transaction.succeeded') => [
      [1, 'transaction.created', id],
      [2, end, id],
    ];
    expect(await sequences('sandbox', a.testKey)).toEqual(lifecycle(aSandbox.json.id));
    expect(await sequences('live', a.liveKey)).toEqual(lifecycle(aLive.id, 'transaction.failed'));
    expect(await sequences('sandbox', b.testKey)).toEqual(lifecycle(bSandbox.json.id));
    expect(await sequences('live', b.liveKey)).toEqual([]);

    // And the live charge is as invisible from the sandbox as the other way round.
    await expectInvisible('sandbox', a.testKey, aLive.id);
    const live = await h.request('live', 'GET', `/v1/charges/${aLive.id}`, { key: a.liveKey });
    expect(live.json).toMatchObject({ status: 'failed', failure_class: 'partner_unavailable', livemode: true });
  });
});

describe('key storage and health', () => {
  test('the raw key never appears in the stored api_keys row, only its SHA-256', async () => {
    const fresh = await h.merchant();
    const extra = await issueKey(h.orm, fresh.id, 'sandbox', ['charges:read']);
    const secrets = [fresh.testKey, fresh.liveKey, extra.secret];
    const rows = await h.orm.em
      .getConnection()
      .execute<{ row: string; secret_hash: string }[]>('select row_to_json(k)::text as row, k.secret_hash from api_keys k where k.merchant_id = ?', [fresh.id]);
    expect(rows).toHaveLength(3);
    const hashes = rows.map((r) => r.secret_hash).sort();
    expect(hashes).toEqual(secrets.map((s) => createHash('sha256').update(s, 'utf8').digest('hex')).sort());
    for (const secret of secrets) {
      const body = secret.replace(/^svc_(test|live)_/, '');
      expect(body.length).toBeGreaterThanOrEqual(24);
      for (const row of rows) {
        expect(row.row).not.toContain(secret);
        expect(row.row).not.toContain(body);
        // Not even a long fragment of the secret: at most the last four characters (the display form).
        expect(row.row).not.toContain(body.slice(0, 8));
        expect(row.row).not.toContain(body.slice(-12, -4));
      }
    }
  });

  test('GET /health answers 200 {"status":"ok"} on both listeners without authentication', async () => {
    for (const env of ['sandbox', 'live'] as const) {
      const res = await h.request(env, 'GET', '/health');
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ status: 'ok' });
      const withBadKey = await h.request(env, 'GET', '/health', { headers: { authorization: 'Bearer svc_test_nope' } });
      expect(withBadKey.status).toBe(200);
      expect(withBadKey.json).toEqual({ status: 'ok' });
    }
  });
});
