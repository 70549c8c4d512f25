/**
 * Control characters in request input (issue 7, defect 1): a NUL (or any C0 control character other
 * than tab and newline) in any string field of any request schema, nested metadata keys and values
 * included, is 400 `invalid_request` naming the field, and writes nothing. PostgreSQL cannot store
 * a NUL: before the fix such a charge passed validation and its workflow retried the record step
 * forever, so POST /v1/charges never answered.
 */
import { countRows } from '../support/db-counts';
import { expectError } from '../support/api-errors';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';

let h: Harness;
/** Never gets a charge or an endpoint: every rejected request must leave its rows at zero. */
let quiet: TestMerchant;
/** Creates the charges that are accepted. */
let busy: TestMerchant;
/** Owns the endpoint the PATCH cases target, and has no charges (so no delivery changes its health). */
let hooked: TestMerchant;
let endpointId: string;
let endpointBefore: unknown;

beforeAll(async () => {
  h = await startHarness();
  [quiet, busy, hooked] = await Promise.all([h.merchant(), h.merchant(), h.merchant()]);
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', {
    key: hooked.testKey,
    body: { url: 'http://127.0.0.1:9/hook', description: 'ok' },
  });
  expect(created.status).toBe(201);
  endpointId = created.json.id;
  endpointBefore = (await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${endpointId}`, { key: hooked.testKey })).json;
});
afterAll(() => h?.close());

const NUL = '\u0000';

const endpointRows = async (merchantId: string) =>
  Number((await h.orm.em.getConnection().execute<{ n: string }[]>('select count(*) as n from webhook_endpoints where merchant_id = ?', [merchantId]))[0].n);

interface ChargeCase {
  name: string;
  body: Record<string, unknown>;
  param: string;
}

const customer = { identifier: '233241234567', name: 'Ama Mensah' };

const chargeCases: ChargeCase[] = [
  { name: 'NUL in customer.name', body: chargeBody({ customer: { ...customer, name: `Ama${NUL}Mensah` } }), param: 'customer.name' },
  { name: 'NUL in customer.identifier', body: chargeBody({ customer: { ...customer, identifier: `233241${NUL}234567` } }), param: 'customer.identifier' },
  { name: 'NUL in description', body: chargeBody({ description: `order${NUL}` }), param: 'description' },
  { name: 'NUL in reference', body: chargeBody({ reference: `${NUL}order-1` }), param: 'reference' },
  { name: 'NUL in currency', body: chargeBody({ currency: `GH${NUL}` }), param: 'currency' },
  { name: 'NUL in channel', body: chargeBody({ channel: `mobile_money${NUL}` }), param: 'channel' },
  { name: 'NUL in momo_network_id', body: chargeBody({ momo_network_id: `${NUL}` }), param: 'momo_network_id' },
  { name: 'NUL in a metadata value', body: chargeBody({ metadata: { note: `a${NUL}b` } }), param: 'metadata.note' },
  { name: 'NUL in a nested metadata value', body: chargeBody({ metadata: { order: { lines: ['ok', `x${NUL}`] } } }), param: 'metadata.order.lines.1' },
  { name: 'NUL in a metadata key', body: chargeBody({ metadata: { [`no${NUL}te`]: 'x' } }), param: 'metadata' },
  { name: 'NUL in a nested metadata key', body: chargeBody({ metadata: { order: { [`id${NUL}`]: 1 } } }), param: 'metadata.order' },
  { name: 'NUL in sandbox_outcome', body: chargeBody({ metadata: { sandbox_outcome: `succeed${NUL}` } }), param: 'metadata.sandbox_outcome' },
  { name: 'U+0001 in customer.name', body: chargeBody({ customer: { ...customer, name: 'Ama\u0001' } }), param: 'customer.name' },
  { name: 'U+0008 (backspace) in description', body: chargeBody({ description: 'a\bb' }), param: 'description' },
  { name: 'U+000B (vertical tab) in description', body: chargeBody({ description: 'a\u000bb' }), param: 'description' },
  { name: 'U+000C (form feed) in reference', body: chargeBody({ reference: 'a\fb' }), param: 'reference' },
  { name: 'carriage return in description', body: chargeBody({ description: 'line 1\r\nline 2' }), param: 'description' },
  { name: 'U+001B (escape) in description', body: chargeBody({ description: '\u001b[31mred' }), param: 'description' },
  { name: 'U+001F in a metadata value', body: chargeBody({ metadata: { note: 'a\u001fb' } }), param: 'metadata.note' },
];

describe('POST /v1/charges', () => {
  test.each(chargeCases)('$name: 400 invalid_request naming $param, nothing written, key not used up', async ({ body, param }) => {
    const key = idempotencyKey();
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: quiet.testKey, body, headers: { 'Idempotency-Key': key } });
    expectError(res, 400, 'invalid_request', param);
    expect(res.json.error.message).toMatch(/control characters/);
    expect(await countRows(h.orm, quiet.id)).toEqual({ charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 });
  });

  test('a key refused for a NUL is still usable: the corrected request creates the charge', async () => {
    const key = idempotencyKey();
    const refused = await h.request('sandbox', 'POST', '/v1/charges', {
      key: busy.testKey,
      body: chargeBody({ description: `bad${NUL}` }),
      headers: { 'Idempotency-Key': key },
    });
    expectError(refused, 400, 'invalid_request', 'description');
    const accepted = await h.request('sandbox', 'POST', '/v1/charges', { key: busy.testKey, body: chargeBody(), headers: { 'Idempotency-Key': key } });
    expect(accepted.status).toBe(200);
    expect((await h.settled(accepted.json.id)).status).toBe('succeeded');
  });

  test('tab and newline are accepted and kept as sent', async () => {
    const description = 'line 1\n\tline 2';
    const name = 'Ama\tMensah';
    const res = await h.request('sandbox', 'POST', '/v1/charges', {
      key: busy.testKey,
      body: chargeBody({ description, customer: { ...customer, name }, metadata: { note: 'a\nb' } }),
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ description, metadata: { note: 'a\nb' } });
    await h.settled(res.json.id);
    // The workflow holds no customer data (issue 9): the stored charge keeps them as sent.
    const stored = await h.request('sandbox', 'GET', `/v1/charges/${res.json.id}`, { key: busy.testKey });
    expect(stored.json.description).toBe(description);
    expect(stored.json.customer.name).toBe(name);
  });
});

interface BodyCase {
  name: string;
  method: 'POST' | 'PATCH';
  body: Record<string, unknown>;
  param: string;
}

const endpointCases: BodyCase[] = [
  { name: 'create: NUL in url', method: 'POST', body: { url: `https://hooks.example.com/${NUL}` }, param: 'url' },
  { name: 'create: NUL in description', method: 'POST', body: { url: 'http://127.0.0.1:9/hook', description: `d${NUL}` }, param: 'description' },
  { name: 'create: NUL in subscribed_events', method: 'POST', body: { url: 'http://127.0.0.1:9/hook', subscribed_events: [`transaction.created${NUL}`] }, param: 'subscribed_events.0' },
  { name: 'create: carriage return in description', method: 'POST', body: { url: 'http://127.0.0.1:9/hook', description: 'a\rb' }, param: 'description' },
  { name: 'patch: NUL in url', method: 'PATCH', body: { url: `http://127.0.0.1:9/${NUL}` }, param: 'url' },
  { name: 'patch: NUL in description', method: 'PATCH', body: { description: `d${NUL}` }, param: 'description' },
  { name: 'patch: NUL in subscribed_events', method: 'PATCH', body: { subscribed_events: ['transaction.created', `x${NUL}`] }, param: 'subscribed_events.1' },
  { name: 'patch: NUL in status', method: 'PATCH', body: { status: `active${NUL}` }, param: 'status' },
];

describe('webhook endpoints', () => {
  test.each(endpointCases)('$name: 400 invalid_request naming $param, nothing written', async ({ method, body, param }) => {
    const merchant = method === 'POST' ? quiet : hooked;
    const path = method === 'POST' ? '/v1/webhook-endpoints' : `/v1/webhook-endpoints/${endpointId}`;
    const res = await h.request('sandbox', method, path, { key: merchant.testKey, body });
    expectError(res, 400, 'invalid_request', param);
    expect(await endpointRows(quiet.id)).toBe(0);
    expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${endpointId}`, { key: hooked.testKey })).json).toEqual(endpointBefore);
  });
});

interface QueryCase {
  path: () => string;
  param: string;
}

const queryCases: QueryCase[] = [
  { path: () => '/v1/events?after_sequence=%00', param: 'after_sequence' },
  { path: () => '/v1/events?cursor=abc%00', param: 'cursor' },
  { path: () => '/v1/events?limit=1%00', param: 'limit' },
  { path: () => '/v1/webhook-endpoints?limit=%00', param: 'limit' },
  { path: () => '/v1/webhook-endpoints?cursor=%00', param: 'cursor' },
  { path: () => '/v1/webhook-endpoints?status=%0d', param: 'status' },
  { path: () => `/v1/webhook-endpoints/${endpointId}/deliveries?status=failed%00`, param: 'status' },
  { path: () => `/v1/webhook-endpoints/${endpointId}/deliveries?cursor=%1f`, param: 'cursor' },
  { path: () => `/v1/webhook-endpoints/${endpointId}/deliveries?limit=%0b`, param: 'limit' },
  { path: () => '/v1/events?type=transaction.created%00', param: 'type' },
  { path: () => `/v1/webhook-endpoints/${endpointId}/deliveries?event_type=refund.succeeded&event_type=transaction.failed%1f`, param: 'event_type' },
  { path: () => `/v1/webhook-endpoints/${endpointId}/deliveries?created_after=2026-01-01%0d`, param: 'created_after' },
];

describe('list queries', () => {
  test.each(queryCases.map((c) => [c.param, c] as const))('%s with a control character: 400 invalid_request', async (_param, { path, param }) => {
    const res = await h.request('sandbox', 'GET', path(), { key: hooked.testKey });
    expectError(res, 400, 'invalid_request', param);
    expect(res.json.error.message).toMatch(/control characters/);
  });
});

describe('path parameters', () => {
  test.each(['/v1/charges/txn_%00', '/v1/webhook-endpoints/we_%00', '/v1/webhook-deliveries/dlv_%0d/replay'])('%s: 400 invalid_request, not a database error', async (path) => {
    const method = path.endsWith('/replay') ? 'POST' : 'GET';
    const res = await h.request('sandbox', method, path, { key: hooked.testKey });
    expectError(res, 400, 'invalid_request');
  });
});
