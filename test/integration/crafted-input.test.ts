/**
 * Crafted input (issue 9, Low: "Crafted input gets 500 today"): a body nested 10,000 deep, a path id
 * that cannot exist (`GET /v1/charges/%00` and its cousins on every route with an id), and a list
 * cursor holding a malformed date or anything else unexpected. Each gets a 4xx in the documented
 * envelope, never a 500, and writes nothing. Choices (docs/security.md):
 * - nesting deeper than 32 levels is refused before parsing: 400 `invalid_request`, `param` the
 *   top-level field it is under;
 * - a control character in the path is 400 `invalid_request`; any other id that does not have the
 *   shape of an id of the route's kind (`txn_`/`we_`/`dlv_` + 24 letters and digits) was never issued:
 *   404 `not_found` with `param: id`, exactly as an unknown id, without a query;
 * - a cursor that is not exactly one the API returned for that list is 400 `invalid_request` with
 *   `param: cursor`.
 */
import { countRows, type RowCounts } from '../support/db-counts';
import { expectError } from '../support/api-errors';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { randomBase62 } from '../../src/support/new-id';

let h: Harness;
/** Owns one endpoint (for the routes under an endpoint) and never gets a charge. */
let m: TestMerchant;
let endpointId: string;

beforeAll(async () => {
  h = await startHarness();
  m = await h.merchant();
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: m.testKey, body: { url: 'http://127.0.0.1:9/hook' } });
  expect(created.status).toBe(201);
  endpointId = created.json.id;
});
afterAll(() => h?.close());

interface Snapshot {
  rows: RowCounts;
  endpoints: unknown[];
  deliveries: number;
}

/** Everything a request of this merchant could have written. */
async function snapshot(): Promise<Snapshot> {
  const conn = h.orm.em.getConnection();
  const endpoints = await conn.execute(`select * from webhook_endpoints where merchant_id = ? order by id`, [m.id]);
  const deliveries = await conn.execute<{ n: number }[]>(`select count(*)::int as n from webhook_deliveries where merchant_id = ?`, [m.id]);
  return { rows: await countRows(h.orm, m.id), endpoints, deliveries: Number(deliveries[0].n) };
}

const nested = (depth: number, leaf: string) => '['.repeat(depth) + leaf + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');
const wellFormed = (prefix: string) => prefix + randomBase62(24);

describe('a body nested 10,000 deep', () => {
  test('metadata nested 10,000 deep on POST /v1/charges: 400 invalid_request naming metadata, nothing written, key still usable', async () => {
    const before = await snapshot();
    const key = idempotencyKey();
    const body = JSON.stringify(chargeBody({ metadata: {} })).replace('"metadata":{}', `"metadata":${deepObject(10_000)}`);
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, rawBody: body, headers: { 'Idempotency-Key': key } });
    expectError(res, 400, 'invalid_request', 'metadata');
    expect(res.json.error.message).toMatch(/more than 32 levels/);
    expect(await snapshot()).toEqual(before);
  });

  test('arrays nested 10,000 deep inside metadata: 400 naming metadata', async () => {
    const before = await snapshot();
    const body = JSON.stringify(chargeBody({ metadata: {} })).replace('"metadata":{}', `"metadata":{"x":${nested(10_000, '1')}}`);
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, rawBody: body, headers: { 'Idempotency-Key': idempotencyKey() } });
    expectError(res, 400, 'invalid_request', 'metadata');
    expect(await snapshot()).toEqual(before);
  });

  test('a whole body of 10,000 nested arrays: 400 without param (no field to name)', async () => {
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, rawBody: nested(10_000, ''), headers: { 'Idempotency-Key': idempotencyKey() } });
    expectError(res, 400, 'invalid_request', null);
  });

  test('deep nesting on the webhook endpoint routes: 400 naming the field, the endpoint unchanged', async () => {
    const before = await snapshot();
    const create = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: m.testKey, rawBody: `{"url":"http://127.0.0.1:9/x","description":${nested(10_000, '"x"')}}` });
    expectError(create, 400, 'invalid_request', 'description');
    const patch = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${endpointId}`, { key: m.testKey, rawBody: `{"subscribed_events":${nested(10_000, '')}}` });
    expectError(patch, 400, 'invalid_request', 'subscribed_events');
    expect(await snapshot()).toEqual(before);
  });

  test('brackets inside strings do not count, and 32 levels are still parsed (then validated)', async () => {
    const brackets = '['.repeat(200) + '{'.repeat(200) + '\\"]';
    const ok = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${endpointId}`, { key: m.testKey, body: { description: brackets } });
    expect(ok.status).toBe(200);
    expect(ok.json.description).toBe(brackets);
    const reset = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${endpointId}`, { key: m.testKey, body: { description: null } });
    expect(reset.status).toBe(200);
    // 32 levels in all (the body is one): past the depth scan, refused by the schema instead.
    const atLimit = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${endpointId}`, { key: m.testKey, rawBody: `{"subscribed_events":${nested(31, '')}}` });
    expectError(atLimit, 400, 'invalid_request', 'subscribed_events.0');
  });
});

describe('ids that cannot exist', () => {
  test('GET /v1/charges/%00: 400 invalid_request (a control character in the path), nothing written', async () => {
    const before = await snapshot();
    const res = await h.request('sandbox', 'GET', '/v1/charges/%00', { key: m.testKey });
    expectError(res, 400, 'invalid_request');
    expect(await snapshot()).toEqual(before);
  });

  const malformed = [
    'txn_',
    'txn_short',
    `txn_${'A'.repeat(25)}`,
    `txn_${'A'.repeat(23)}-`,
    'TXN_000000000000000000000000',
    'we_000000000000000000000000',
    '%ZZ',
    '%C0%AF',
    '%ED%A0%80',
    'txn_%2F..%2F..%2Fetc',
    `txn_${'x'.repeat(4000)}`,
    "txn_00000000000000000000000'",
    '%E2%80%AE000000000000000000000000',
  ];
  test.each(malformed)('GET /v1/charges/%s: 404 not_found, param id, no query', async (id) => {
    const before = await snapshot();
    const res = await h.request('sandbox', 'GET', `/v1/charges/${id}`, { key: m.testKey });
    expectError(res, 404, 'not_found', 'id');
    expect(res.json.error.message).toContain('"txn_" followed by 24 letters and digits');
    expect(await snapshot()).toEqual(before);
  });

  const routes: [string, (id: string) => string, string][] = [
    ['GET', (id) => `/v1/webhook-endpoints/${id}`, 'we_'],
    ['PATCH', (id) => `/v1/webhook-endpoints/${id}`, 'we_'],
    ['DELETE', (id) => `/v1/webhook-endpoints/${id}`, 'we_'],
    ['POST', (id) => `/v1/webhook-endpoints/${id}/rotate-secret`, 'we_'],
    ['GET', (id) => `/v1/webhook-endpoints/${id}/deliveries`, 'we_'],
    ['GET', (id) => `/v1/webhook-deliveries/${id}`, 'dlv_'],
    ['POST', (id) => `/v1/webhook-deliveries/${id}/replay`, 'dlv_'],
  ];
  test.each(routes)('%s %s with a malformed id: 404 not_found, nothing written (no idempotency claim either)', async (method, path, prefix) => {
    const before = await snapshot();
    for (const id of [`${prefix}nope`, `${prefix}${'0'.repeat(23)}%27`, 'x', `${prefix}${'0'.repeat(24)}0`, '%ZZ']) {
      const res = await h.request('sandbox', method, path(id), {
        key: m.testKey,
        headers: { 'Idempotency-Key': idempotencyKey() },
        ...(method === 'PATCH' ? { body: { description: 'changed' } } : {}),
      });
      expectError(res, 404, 'not_found', 'id');
    }
    expect(await snapshot()).toEqual(before);
  });

  test('well-formed ids that do not exist are still 404 not_found (after the query)', async () => {
    expectError(await h.request('sandbox', 'GET', `/v1/charges/${wellFormed('txn_')}`, { key: m.testKey }), 404, 'not_found', 'id');
    expectError(await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${wellFormed('we_')}`, { key: m.testKey }), 404, 'not_found', 'id');
    expectError(await h.request('sandbox', 'GET', `/v1/webhook-deliveries/${wellFormed('dlv_')}`, { key: m.testKey }), 404, 'not_found', 'id');
  });

  test('a real id still works on every route', async () => {
    expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${endpointId}`, { key: m.testKey })).status).toBe(200);
    expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries`, { key: m.testKey })).status).toBe(200);
  });
});

describe('cursors', () => {
  const lists: [string, () => string, string][] = [
    ['endpoints', () => '/v1/webhook-endpoints', 'we_'],
    ['deliveries', () => `/v1/webhook-endpoints/${endpointId}/deliveries`, 'dlv_'],
  ];
  const badCursors: [string, (prefix: string) => string][] = [
    ['a malformed date', (p) => cursorOf(`garbage 2024|${wellFormed(p)}`)],
    ['a date PostgreSQL refuses', (p) => cursorOf(`2024-02-30T00:00:00.000Z|${wellFormed(p)}`)],
    ['a date Date.parse accepts loosely', (p) => cursorOf(`1|${wellFormed(p)}`)],
    ['a date out of range', (p) => cursorOf(`+275760-09-13T00:00:00.000Z|${wellFormed(p)}`)],
    ['a date without milliseconds', (p) => cursorOf(`2024-01-01T00:00:00Z|${wellFormed(p)}`)],
    ['a NUL in the id', (p) => cursorOf(`2024-01-01T00:00:00.000Z|${p}\u0000`)],
    ['a quote in the id', (p) => cursorOf(`2024-01-01T00:00:00.000Z|${p}'; select 1 --`)],
    ['a third part', (p) => cursorOf(`2024-01-01T00:00:00.000Z|${wellFormed(p)}|x`)],
    ['no separator', () => cursorOf('2024-01-01T00:00:00.000Z')],
    ['not base64 of anything', () => 'A'],
    ['invalid UTF-8', () => Buffer.from([0xff, 0xfe, 0x7c, 0x80]).toString('base64url')],
  ];

  for (const [list, path, prefix] of lists) {
    test.each(badCursors)(`list ${list}: a cursor holding %s is 400 invalid_request (cursor), nothing written`, async (_name, cursor) => {
      const before = await snapshot();
      const res = await h.request('sandbox', 'GET', `${path()}?cursor=${cursor(prefix)}`, { key: m.testKey });
      expectError(res, 400, 'invalid_request', 'cursor');
      expect(await snapshot()).toEqual(before);
    });

    test(`list ${list}: a well-formed cursor is accepted`, async () => {
      const res = await h.request('sandbox', 'GET', `${path()}?cursor=${cursorOf(`2099-01-01T00:00:00.000Z|${wellFormed(prefix)}`)}`, { key: m.testKey });
      expect(res.status).toBe(200);
    });
  }

  test("another list's cursor is refused (an endpoint cursor on the deliveries list)", async () => {
    const endpointCursor = cursorOf(`2024-01-01T00:00:00.000Z|${wellFormed('we_')}`);
    expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints?cursor=${endpointCursor}`, { key: m.testKey })).status).toBe(200);
    expectError(await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?cursor=${endpointCursor}`, { key: m.testKey }), 400, 'invalid_request', 'cursor');
  });

  test('a next_cursor the API returned pages on', async () => {
    const second = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: m.testKey, body: { url: 'http://127.0.0.1:9/second' } });
    expect(second.status).toBe(201);
    const first = await h.request('sandbox', 'GET', '/v1/webhook-endpoints?limit=1', { key: m.testKey });
    expect(first.json.has_more).toBe(true);
    const next = await h.request('sandbox', 'GET', `/v1/webhook-endpoints?limit=1&cursor=${first.json.next_cursor}`, { key: m.testKey });
    expect(next.status).toBe(200);
    expect(next.json.data.map((e: { id: string }) => e.id)).toEqual([endpointId]);
    await h.request('sandbox', 'DELETE', `/v1/webhook-endpoints/${second.json.id}`, { key: m.testKey });
  });

  const eventCursors: [string, string][] = [
    ['a sequence past 2^53', cursorOf('seq:9999999999999999')],
    ['a leading zero', cursorOf('seq:007')],
    ['a negative sequence', cursorOf('seq:-1')],
    ['a date', cursorOf('2024-01-01T00:00:00.000Z|evt_x')],
    ['non-canonical base64 of a good cursor', `${cursorOf('seq:5').slice(0, -1)}V`],
  ];
  test.each(eventCursors)('GET /v1/events with a cursor holding %s: 400 invalid_request (cursor)', async (_name, cursor) => {
    expectError(await h.request('sandbox', 'GET', `/v1/events?cursor=${cursor}`, { key: m.testKey }), 400, 'invalid_request', 'cursor');
  });
});

describe('limit and after_sequence', () => {
  test.each(['0', '101', '-1', '1e2', '+5', ' 5', '5.0', '007', '99999999999999999999', ''])('limit=%p: 400 invalid_request (limit) on every list', async (limit) => {
    for (const path of ['/v1/events', '/v1/webhook-endpoints', `/v1/webhook-endpoints/${endpointId}/deliveries`]) {
      expectError(await h.request('sandbox', 'GET', `${path}?limit=${encodeURIComponent(limit)}`, { key: m.testKey }), 400, 'invalid_request', 'limit');
    }
  });

  test('limit given twice: 400 invalid_request (limit)', async () => {
    expectError(await h.request('sandbox', 'GET', '/v1/webhook-endpoints?limit=1&limit=2', { key: m.testKey }), 400, 'invalid_request', 'limit');
    expectError(await h.request('sandbox', 'GET', '/v1/events?limit=1&limit=2', { key: m.testKey }), 400, 'invalid_request', 'limit');
  });

  test.each(['-1', '1.5', '01', '9999999999999999', '99999999999999999', 'abc', ''])('after_sequence=%p: 400 invalid_request (after_sequence)', async (value) => {
    expectError(await h.request('sandbox', 'GET', `/v1/events?after_sequence=${value}`, { key: m.testKey }), 400, 'invalid_request', 'after_sequence');
  });

  test('after_sequence at 2^53 - 1 and 0 and limit 1 and 100 are fine', async () => {
    for (const q of [`after_sequence=${Number.MAX_SAFE_INTEGER}`, 'after_sequence=0&limit=100', 'limit=1']) {
      const res = await h.request('sandbox', 'GET', `/v1/events?${q}`, { key: m.testKey });
      expect(res.status).toBe(200);
    }
  });
});
