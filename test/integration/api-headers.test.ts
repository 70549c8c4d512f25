import { v1Routers } from '../../src/http/app';
import type { Environment } from '../../src/domain/environment';
import { countRows } from '../support/db-counts';
import { idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant } from '../support/harness';

/**
 * Every API answer carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`, errors
 * included (issue 20, carried from the security issue). The walk takes the routes from the routers
 * each listener mounts, so a route added later is walked too: each is called with the merchant's
 * key (a 200, or an error about the unknown id or the empty body) and with no key (401).
 */

let h: Harness;
let merchant: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  merchant = await h.merchant({ verified: true });
});
afterAll(() => h?.close());

const ENVS: Environment[] = ['sandbox', 'live'];

/** Each route of the listener: method and path with its parameters filled by an id that matches nothing. */
function routesOf(environment: Environment): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const router of v1Routers(h.deps, { environment, bodyLimitBytes: 64 * 1024 })) {
    for (const layer of router.stack) {
      const path = String(layer.path).replace(/:[A-Za-z_]+/g, 'zz_0000000000000000');
      for (const method of layer.methods) if (method !== 'HEAD') out.push([method, path]);
    }
  }
  return out;
}

function expectHeaders(res: ApiResponse, what: string): void {
  expect({ what, cacheControl: res.headers.get('cache-control'), nosniff: res.headers.get('x-content-type-options') }).toEqual({ what, cacheControl: 'no-store', nosniff: 'nosniff' });
}

test.each(ENVS)('%s: every route, with and without a key, answers with no-store and nosniff', async (env) => {
  const routes = routesOf(env);
  expect(routes.length).toBeGreaterThan(20);
  expect(routes).toContainEqual(['GET', '/v1/balances']);
  const key = env === 'sandbox' ? merchant.testKey : merchant.liveKey;
  const before = await countRows(h.orm, merchant.id);
  const statuses = new Set<number>();
  for (const [method, path] of routes) {
    const body = method === 'GET' || method === 'DELETE' ? undefined : {};
    for (const auth of [key, undefined]) {
      const res = await h.request(env, method, path, { key: auth, body, headers: { 'Idempotency-Key': idempotencyKey() } });
      statuses.add(res.status);
      expectHeaders(res, `${env} ${method} ${path} ${auth ? 'with key' : 'no key'} → ${res.status}`);
      if (!auth) expect(res.status).toBe(401);
    }
  }
  // The walk met successes and several kinds of error, and changed nothing.
  expect([...statuses]).toEqual(expect.arrayContaining([200, 401, 404]));
  expect(await countRows(h.orm, merchant.id)).toEqual(before);
});

test.each(ENVS)('%s: the answers no route makes (unknown path, bad body, too large, a control character) carry both', async (env) => {
  const key = env === 'sandbox' ? merchant.testKey : merchant.liveKey;
  const cases: Array<[string, () => Promise<ApiResponse>]> = [
    ['GET /v1/balances', () => h.request(env, 'GET', '/v1/balances', { key })],
    ['unknown route', () => h.request(env, 'GET', '/v1/nothing-here', { key })],
    ['invalid JSON', () => h.request(env, 'POST', '/v1/charges', { key, rawBody: '{', headers: { 'Idempotency-Key': idempotencyKey() } })],
    ['too large', () => h.request(env, 'POST', '/v1/charges', { key, rawBody: JSON.stringify({ a: 'x'.repeat(70 * 1024) }), headers: { 'Idempotency-Key': idempotencyKey() } })],
    ['control character in the path', () => h.request(env, 'GET', '/v1/charges/txn_%01', { key })],
    ['health', () => h.request(env, 'GET', '/health')],
  ];
  for (const [what, call] of cases) {
    const res = await call();
    expectHeaders(res, `${env} ${what} → ${res.status}`);
  }
});
