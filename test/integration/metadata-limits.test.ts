/**
 * Metadata limits (issue 9, storage amplification): metadata is stored with the charge, copied into
 * every event and sent with every delivery, so it is bounded: at most 50 keys in all (nested keys and
 * array items count), keys up to 40 characters, string values up to 500 characters, at most 5 levels
 * of objects and arrays (metadata itself is level 1). Anything past a limit is 400 `invalid_request`
 * naming the field and writes nothing; `metadata.sandbox_outcome` keeps working.
 */
import { countRows } from '../support/db-counts';
import { expectError } from '../support/api-errors';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';

let h: Harness;
/** Never gets a charge. */
let quiet: TestMerchant;
/** Gets the charges that are accepted. */
let busy: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
  [quiet, busy] = await Promise.all([h.merchant(), h.merchant()]);
});
afterAll(() => h?.close());

const keys = (n: number, prefix = 'k') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));

const refused: { name: string; metadata: unknown; param: string; message: RegExp }[] = [
  { name: '51 keys', metadata: keys(51), param: 'metadata', message: /more than 50 keys/ },
  { name: '50 keys plus one nested', metadata: { ...keys(49), order: { id: 1 } }, param: 'metadata', message: /more than 50 keys/ },
  { name: 'an array of 51 items', metadata: { lines: Array.from({ length: 51 }, (_, i) => i) }, param: 'metadata', message: /more than 50 keys/ },
  { name: 'a 41-character key', metadata: { ['k'.repeat(41)]: 'v' }, param: 'metadata', message: /key longer than 40/ },
  { name: 'a 41-character nested key', metadata: { order: { ['k'.repeat(41)]: 'v' } }, param: 'metadata.order', message: /key longer than 40/ },
  { name: 'a 501-character value', metadata: { note: 'v'.repeat(501) }, param: 'metadata.note', message: /longer than 500/ },
  { name: 'a 501-character value in an array', metadata: { lines: ['ok', 'v'.repeat(501)] }, param: 'metadata.lines.1', message: /longer than 500/ },
  { name: 'a 501-character sandbox_outcome', metadata: { sandbox_outcome: 'x'.repeat(501) }, param: 'metadata.sandbox_outcome', message: /longer than 500/ },
  { name: '6 levels of objects', metadata: { a: { b: { c: { d: { e: { f: 1 } } } } } }, param: 'metadata.a.b.c.d.e', message: /at most 5 levels/ },
  { name: '6 levels with arrays', metadata: { a: [[[[['x']]]]] }, param: 'metadata.a.0.0.0.0', message: /at most 5 levels/ },
];

describe('POST /v1/charges', () => {
  test.each(refused)('$name: 400 invalid_request naming $param, nothing written', async ({ metadata, param, message }) => {
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: quiet.testKey, body: chargeBody({ metadata }), headers: { 'Idempotency-Key': idempotencyKey() } });
    expectError(res, 400, 'invalid_request', param);
    expect(res.json.error.message).toMatch(message);
    expect(await countRows(h.orm, quiet.id)).toEqual({ charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 });
  });

  test('metadata that is not an object is still refused by the schema', async () => {
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: quiet.testKey, body: chargeBody({ metadata: ['a'] }), headers: { 'Idempotency-Key': idempotencyKey() } });
    expectError(res, 400, 'invalid_request', 'metadata');
  });

  test('metadata at every limit is accepted and returned unchanged, sandbox_outcome included', async () => {
    const metadata = {
      ...keys(40),
      ['k'.repeat(40)]: 'é'.repeat(500),
      deep: { b: { c: { d: { e: 'deepest' } } } },
      sandbox_outcome: 'insufficient_funds',
    };
    // 40 + 1 + deep(1) + b(1) + c(1) + d(1) + e(1) + sandbox_outcome(1) = 47 keys
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: busy.testKey, body: chargeBody({ metadata }), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(res.status).toBe(200);
    expect(res.json.metadata).toEqual(metadata);
    const settled = await h.settled(res.json.id);
    expect(settled.status).toBe('failed');
    expect(settled.failureClass).toBe('insufficient_funds');
  });

  test('exactly 50 keys is accepted', async () => {
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: busy.testKey, body: chargeBody({ metadata: keys(50) }), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(res.status).toBe(200);
    await h.settled(res.json.id);
  });
});
