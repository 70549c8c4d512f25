/**
 * A request with an unknown key costs no more than a cached lookup (issue 9, item 3): a malformed key
 * is refused without a query, an unknown one costs at most one query per distinct key, and a known key
 * is still looked up (and checked for revocation) on every request, so a revoked key is refused at once.
 * Queries are counted at the ORM connection the API uses (real PostgreSQL).
 */
import { randomBase62 } from '../../src/support/new-id';
import { issueKey, revokeKey } from '../../src/persistence/merchants/merchant-store';
import { expectError } from '../support/api-errors';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';

let h: Harness;
let merchant: TestMerchant;
let keyQueries = 0;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  merchant = await h.merchant({ verified: true });
  const connection = h.orm.em.getConnection();
  const execute = connection.execute.bind(connection);
  jest.spyOn(connection, 'execute').mockImplementation(((query: unknown, ...rest: unknown[]) => {
    if (typeof query === 'string' && /from api_keys/.test(query)) keyQueries++;
    return (execute as (...args: unknown[]) => unknown)(query, ...rest);
  }) as never);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await h?.close();
});

const balances = (key: string, env: 'sandbox' | 'live' = 'sandbox') => h.request(env, 'GET', '/v1/balances', { key });

test('many requests with random unknown keys: at most one query per distinct key', async () => {
  const keys = Array.from({ length: 40 }, (_, i) => `${i % 2 ? 'svc_live_' : 'svc_test_'}${randomBase62(32)}`);
  const before = keyQueries;
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all(keys.map((key) => balances(key)));
    for (const res of answers) expectError(res, 401, 'invalid_api_key');
  }
  expect(keyQueries - before).toBe(keys.length);
  // The other listener shares the memory.
  for (const key of keys.slice(0, 10)) expectError(await balances(key, 'live'), 401, 'invalid_api_key');
  expect(keyQueries - before).toBe(keys.length);
});

test('malformed keys (wrong prefix, wrong length, stray characters) are refused before any lookup', async () => {
  const before = keyQueries;
  const malformed = [
    `sk_test_${randomBase62(32)}`,
    `svc_test_${randomBase62(31)}`,
    `svc_test_${randomBase62(33)}`,
    `svc_test_${randomBase62(31)}-`,
    `svc_prod_${randomBase62(32)}`,
    `${merchant.testKey}x`,
    merchant.testKey.slice(0, -1),
    'svc_test_',
  ];
  for (const key of malformed) expectError(await balances(key), 401, 'invalid_api_key');
  expect(keyQueries - before).toBe(0);
});

test('a known key is looked up on every request; revoked, it is refused on the very next one', async () => {
  const issued = await issueKey(h.orm, merchant.id, 'sandbox', ['balances:read']);
  const before = keyQueries;
  for (let i = 0; i < 3; i++) expect((await balances(issued.secret)).status).toBe(200);
  expect(keyQueries - before).toBe(3);
  await revokeKey(h.orm, issued.id);
  expectError(await balances(issued.secret), 401, 'invalid_api_key');
  // Still refused, now from memory.
  const afterRevoke = keyQueries;
  expectError(await balances(issued.secret), 401, 'invalid_api_key');
  expect(keyQueries).toBe(afterRevoke);
  // The merchant's other key is unaffected.
  expect((await balances(merchant.testKey)).status).toBe(200);
});

test('a real key of the other environment is still 403 environment_mismatch', async () => {
  expectError(await balances(merchant.liveKey), 403, 'environment_mismatch');
});
