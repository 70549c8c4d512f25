/**
 * Hostile bodies on the API (issue 32, "Hostile bodies and headers"), on both listeners: deep JSON,
 * huge arrays, `__proto__` and `constructor` keys, bytes that are not UTF-8, numbers beyond 2^53 and
 * floats where integers belong, duplicate keys. Each gets a 4xx in the documented envelope and writes
 * nothing. Choices (docs/security.md, "Hostile input"):
 * - a key given twice anywhere in a body is 400 `invalid_request` naming it (never the last one taken);
 * - `__proto__` and `constructor` keys are refused anywhere, metadata included, even escaped;
 * - an integer written beyond 2^53 − 1 is refused (it would be rounded); in the API's own fields (all
 *   integers) the written value must be exactly a safe integer, checked on the text: 1.5 and
 *   4503599627370496.5 (which JSON.parse rounds) are refused; 1.0, 1e2 and 150E2 are the integers
 *   they are (as JSON Schema's `integer` and so the OpenAPI document say), -0 is 0; metadata keeps
 *   any finite number;
 * - bytes that are not UTF-8 are 400, never read as U+FFFD.
 * Headers, slowloris and bodies that never end: hostile-connections.test.ts; the web port's forms and
 * checkout pages: hostile-web-input.test.ts; the partner's callback route: hostile-callbacks.test.ts.
 */
import { countRows, type RowCounts } from '../support/db-counts';
import { expectError } from '../support/api-errors';
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant } from '../support/harness';

let h: Harness;
/** Never gets a charge nor an endpoint: every refused request must leave it with nothing. */
let quiet: TestMerchant;
/** For the requests that are accepted (the controls). */
let busy: TestMerchant;

beforeAll(async () => {
  h = await startHarness();
  [quiet, busy] = await Promise.all([h.merchant(), h.merchant()]);
});
afterAll(() => h?.close());

type Env = 'sandbox' | 'live';

/** A POST with exactly these bytes. */
async function send(env: Env, path: string, key: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const res = await fetch(h.urls[env] + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers }, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json } as ApiResponse;
}

interface Snapshot {
  rows: RowCounts;
  endpoints: number;
}

async function snapshot(merchantId: string): Promise<Snapshot> {
  const rows = await h.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from webhook_endpoints where merchant_id = ?`, [merchantId]);
  return { rows: await countRows(h.orm, merchantId), endpoints: Number(rows[0].n) };
}

const NOTHING: Snapshot = { rows: { charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 }, endpoints: 0 };

/** A charge body's JSON text with `"metadata":{}` replaced by `metadata` (raw JSON text). */
const chargeWith = (replace: string, by: string) => {
  const text = JSON.stringify(chargeBody({ metadata: {} }));
  expect(text).toContain(replace);
  return text.replace(replace, by);
};
/** `text` with `bytes` put where `@@` is. */
const withBytes = (text: string, bytes: number[]) => {
  const [head, tail] = text.split('@@');
  return Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]);
};
const nested = (depth: number, leaf: string) => '['.repeat(depth) + leaf + ']'.repeat(depth);
const zeros = (n: number) => '[' + Array(n).fill('0').join(',') + ']';

interface Hostile {
  name: string;
  body: string | Buffer;
  status: number;
  code: string;
  param: string | null;
  message?: RegExp;
}

/** On POST /v1/charges (sandbox). */
const hostileCharges: Hostile[] = [
  // Deep JSON
  { name: 'metadata nested 10,000 objects deep', body: chargeWith('"metadata":{}', `"metadata":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`), status: 400, code: 'invalid_request', param: 'metadata', message: /more than 32 levels/ },
  { name: 'a body of 10,000 nested arrays', body: nested(10_000, ''), status: 400, code: 'invalid_request', param: null, message: /more than 32 levels/ },
  // Huge arrays, within and beyond the body limit (64 KiB)
  { name: 'metadata holding an array of 30,000 items (within the limit)', body: chargeWith('"metadata":{}', `"metadata":{"x":${zeros(30_000)}}`), status: 400, code: 'invalid_request', param: 'metadata', message: /more than 50 keys/ },
  { name: 'an unknown field holding an array of 30,000 items', body: chargeWith('"metadata":{}', `"metadata":{},"items":${zeros(30_000)}`), status: 400, code: 'invalid_request', param: 'items' },
  { name: 'a body that is an array of 30,000 items', body: zeros(30_000), status: 400, code: 'invalid_request', param: null, message: /must be a JSON object/ },
  { name: 'an array of 200,000 items (beyond the limit)', body: chargeWith('"metadata":{}', `"metadata":{"x":${zeros(200_000)}}`), status: 413, code: 'request_too_large', param: null },
  // __proto__ and constructor
  { name: 'a top-level __proto__ key', body: chargeWith('"metadata":{}', '"metadata":{},"__proto__":{"verified":true}'), status: 400, code: 'invalid_request', param: '__proto__', message: /not allowed/ },
  { name: 'metadata.__proto__', body: chargeWith('"metadata":{}', '"metadata":{"__proto__":{"polluted":"yes"}}'), status: 400, code: 'invalid_request', param: 'metadata.__proto__' },
  { name: 'metadata.__proto__ written with an escape', body: chargeWith('"metadata":{}', '"metadata":{"\\u005f_proto__":{"polluted":"yes"}}'), status: 400, code: 'invalid_request', param: 'metadata.__proto__' },
  { name: 'metadata.constructor.prototype', body: chargeWith('"metadata":{}', '"metadata":{"constructor":{"prototype":{"polluted":"yes"}}}'), status: 400, code: 'invalid_request', param: 'metadata.constructor' },
  { name: 'customer.constructor', body: JSON.stringify(chargeBody()).replace('"customer":{', '"customer":{"constructor":"x",'), status: 400, code: 'invalid_request', param: 'customer.constructor' },
  // Invalid UTF-8
  { name: 'a byte 0xFF in the description', body: withBytes(chargeWith('"description":"Test order"', '"description":"Test @@order"'), [0xff]), status: 400, code: 'invalid_request', param: null, message: /not valid UTF-8/ },
  { name: 'an overlong encoding of "/" (0xC0 0xAF)', body: withBytes(chargeWith('"description":"Test order"', '"description":"a@@b"'), [0xc0, 0xaf]), status: 400, code: 'invalid_request', param: null, message: /not valid UTF-8/ },
  { name: 'an encoded lone surrogate (0xED 0xA0 0x80)', body: withBytes(chargeWith('"description":"Test order"', '"description":"a@@"'), [0xed, 0xa0, 0x80]), status: 400, code: 'invalid_request', param: null, message: /not valid UTF-8/ },
  { name: 'a truncated sequence at the end of a metadata key (0xE2 0x82)', body: withBytes(chargeWith('"metadata":{}', '"metadata":{"k@@":"v"}'), [0xe2, 0x82]), status: 400, code: 'invalid_request', param: null, message: /not valid UTF-8/ },
  // Numbers beyond 2^53, floats where integers belong
  { name: 'amount 9007199254740993 (2^53 + 1)', body: chargeWith('"amount":15000', '"amount":9007199254740993'), status: 400, code: 'invalid_request', param: 'amount', message: /beyond 2\^53/ },
  { name: 'amount -9007199254740993', body: chargeWith('"amount":15000', '"amount":-9007199254740993'), status: 400, code: 'invalid_request', param: 'amount', message: /beyond 2\^53/ },
  { name: 'amount 1e400 (Infinity)', body: chargeWith('"amount":15000', '"amount":1e400'), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'amount 1.5', body: chargeWith('"amount":15000', '"amount":1.5'), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'amount 4503599627370496.5 (JSON.parse would round it to an integer)', body: chargeWith('"amount":15000', '"amount":4503599627370496.5'), status: 400, code: 'invalid_request', param: 'amount', message: /whole number/ },
  { name: 'amount 9007199254740993.0 (beyond 2^53, written with a fraction part)', body: chargeWith('"amount":15000', '"amount":9007199254740993.0'), status: 400, code: 'invalid_request', param: 'amount', message: /beyond 2\^53/ },
  { name: 'amount 1e16 (beyond 2^53, written with an exponent)', body: chargeWith('"amount":15000', '"amount":1e16'), status: 400, code: 'invalid_request', param: 'amount', message: /beyond 2\^53/ },
  { name: 'amount 1.000000000000000000001 (a fraction a double cannot hold)', body: chargeWith('"amount":15000', '"amount":1.000000000000000000001'), status: 400, code: 'invalid_request', param: 'amount', message: /whole number/ },
  { name: 'amount -0 (read as 0: below the minimum of 1)', body: chargeWith('"amount":15000', '"amount":-0'), status: 400, code: 'invalid_request', param: 'amount' },
  { name: 'a metadata integer beyond 2^53 (it would be rounded)', body: chargeWith('"metadata":{}', '"metadata":{"order":12345678901234567890}'), status: 400, code: 'invalid_request', param: 'metadata.order', message: /beyond 2\^53/ },
  // Duplicate keys
  { name: 'amount given twice', body: chargeWith('"amount":15000', '"amount":15000,"amount":1500000'), status: 400, code: 'invalid_request', param: 'amount', message: /more than once/ },
  { name: 'currency given twice', body: chargeWith('"currency":"GHS"', '"currency":"GHS","currency":"KES"'), status: 400, code: 'invalid_request', param: 'currency', message: /more than once/ },
  { name: 'customer.identifier given twice', body: JSON.stringify(chargeBody()).replace('"customer":{', '"customer":{"identifier":"233240000000",'), status: 400, code: 'invalid_request', param: 'customer.identifier', message: /more than once/ },
  { name: 'a metadata key given twice, deep inside', body: chargeWith('"metadata":{}', '"metadata":{"a":[{"b":1,"b":2}]}'), status: 400, code: 'invalid_request', param: 'metadata.a.0.b', message: /more than once/ },
  { name: 'a duplicate written with an escape ("\\u0061mount")', body: chargeWith('"amount":15000', '"amount":15000,"\\u0061mount":1'), status: 400, code: 'invalid_request', param: 'amount', message: /more than once/ },
];

describe('POST /v1/charges (sandbox): hostile bodies are 4xx in the envelope and write nothing', () => {
  test.each(hostileCharges)('$name → $status $code $param', async (row) => {
    const before = await snapshot(quiet.id);
    expect(before).toEqual(NOTHING);
    const key = idempotencyKey();
    const res = await send('sandbox', '/v1/charges', quiet.testKey, row.body, { 'Idempotency-Key': key });
    expectError(res, row.status, row.code, row.param);
    if (row.message) expect(res.json.error.message).toMatch(row.message);
    expect(await snapshot(quiet.id)).toEqual(NOTHING);
    // The refusal did not burn the key, and nothing was polluted.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).verified).toBeUndefined();
  });
});

describe('what is still accepted', () => {
  test('an amount written 150E2 or 15000.000 is the integer 15000 (JSON Schema integer): created with amount 15000', async () => {
    for (const written of ['150E2', '15000.000']) {
      const res = await send('sandbox', '/v1/charges', busy.testKey, chargeWith('"amount":15000', `"amount":${written}`), { 'Idempotency-Key': idempotencyKey() });
      expect({ written, status: res.status, amount: res.json.amount }).toEqual({ written, status: 200, amount: 15000 });
      expect((await h.settled(res.json.id)).status).toBe('succeeded');
    }
  });

  test('metadata keeps any finite number (1.5, 1e2, 2^53 - 1) and UTF-8 text; the charge is created with them', async () => {
    const before = await countRows(h.orm, busy.id);
    const body = chargeWith('"metadata":{}', '"metadata":{"ratio":1.5,"hundred":1e2,"big":9007199254740991,"name":"Ama Mɛnsah ✓"}');
    const res = await send('sandbox', '/v1/charges', busy.testKey, body, { 'Idempotency-Key': idempotencyKey() });
    expect(res.status).toBe(200);
    expect(res.json.metadata).toEqual({ ratio: 1.5, hundred: 100, big: 9007199254740991, name: 'Ama Mɛnsah ✓' });
    expect((await h.settled(res.json.id)).status).toBe('succeeded');
    expect((await countRows(h.orm, busy.id)).charges).toBe(before.charges + 1);
  });
});

/** On the other body routes, both listeners (the live one without a rail: its endpoints). */
const hostileEndpoints: Hostile[] = [
  { name: 'deep JSON in description', body: `{"url":"https://example.com/hook","description":${nested(10_000, '"x"')}}`, status: 400, code: 'invalid_request', param: 'description' },
  { name: 'subscribed_events of 3,000 items (within the limit)', body: `{"url":"https://example.com/hook","subscribed_events":[${Array(3_000).fill('"charge.succeeded"').join(',')}]}`, status: 400, code: 'invalid_request', param: 'subscribed_events' },
  { name: 'subscribed_events of 20,000 items (beyond the limit)', body: `{"url":"https://example.com/hook","subscribed_events":[${Array(20_000).fill('"charge.succeeded"').join(',')}]}`, status: 413, code: 'request_too_large', param: null },
  { name: 'a __proto__ key', body: '{"url":"https://example.com/hook","__proto__":{"status":"active"}}', status: 400, code: 'invalid_request', param: '__proto__' },
  { name: 'a constructor key', body: '{"url":"https://example.com/hook","constructor":{"prototype":{"x":1}}}', status: 400, code: 'invalid_request', param: 'constructor' },
  { name: 'a byte 0xFE in the url', body: Buffer.concat([Buffer.from('{"url":"https://example.com/'), Buffer.from([0xfe]), Buffer.from('"}')]), status: 400, code: 'invalid_request', param: null },
  { name: 'timeout_seconds 10.5', body: '{"url":"https://example.com/hook","timeout_seconds":10.5}', status: 400, code: 'invalid_request', param: 'timeout_seconds' },
  { name: 'timeout_seconds 1e-1', body: '{"url":"https://example.com/hook","timeout_seconds":1e-1}', status: 400, code: 'invalid_request', param: 'timeout_seconds' },
  { name: 'timeout_seconds 2^53 + 1', body: '{"url":"https://example.com/hook","timeout_seconds":9007199254740993}', status: 400, code: 'invalid_request', param: 'timeout_seconds' },
  { name: 'url given twice', body: '{"url":"https://example.com/a","url":"https://example.com/b"}', status: 400, code: 'invalid_request', param: 'url' },
];

describe.each(['sandbox', 'live'] as const)('POST /v1/webhook-endpoints (%s): hostile bodies are 4xx and register nothing', (env) => {
  test.each(hostileEndpoints)('$name → $status $code $param', async (row) => {
    const key = env === 'sandbox' ? quiet.testKey : quiet.liveKey;
    const res = await send(env, '/v1/webhook-endpoints', key, row.body);
    expectError(res, row.status, row.code, row.param);
    expect(await snapshot(quiet.id)).toEqual(NOTHING);
  });
});

describe('the other body routes read bodies the same way', () => {
  test.each([
    ['POST /v1/refunds', '/v1/refunds', '{"charge":"txn_x","amount":100,"amount":200}', 'amount'],
    ['POST /v1/payouts', '/v1/payouts', '{"amount":100.25,"currency":"GHS"}', 'amount'],
    ['POST /v1/disputes/{id}/evidence', '/v1/disputes/dsp_000000000000000000000000/evidence', '{"text":"a","text":"b"}', 'text'],
    ['POST /v1/sandbox/charges/{id}/disputes', '/v1/sandbox/charges/txn_000000000000000000000000/disputes', '{"__proto__":{}}', '__proto__'],
  ])('%s: 400 naming %s', async (_name, path, body, param) => {
    const res = await send('sandbox', path, quiet.testKey, body, { 'Idempotency-Key': idempotencyKey() });
    expectError(res, 400, 'invalid_request', param as string);
    expect(await snapshot(quiet.id)).toEqual(NOTHING);
  });
});
