/**
 * Webhook endpoints over HTTP (SPEC 2.3, 4.6–4.8; INTERFACE "Webhooks"): the secret shown once,
 * validation in the documented envelope with nothing written, the public-address rule with its
 * sandbox-only exemptions, PATCH, delete, lists, rotation, and isolation between merchants and
 * environments.
 */
import { EVENT_TYPES } from '../../src/domain/event-types';
import type { Resolver } from '../../src/webhooks/url-policy';
import { expectError } from '../support/api-errors';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';

// Names the registration check resolves: one public, one that points at a private address.
const dns: Record<string, string[]> = { 'hooks.example.com': ['93.184.216.34'], 'internal.example.com': ['10.1.2.3'] };
const resolve: Resolver = async (host) => {
  if (dns[host]) return dns[host];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

let h: Harness;
let m: TestMerchant;
beforeAll(async () => {
  h = await startHarness({ worker: false, resolve });
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await h?.close();
});

const create = (body: unknown, key = m.testKey, env: 'sandbox' | 'live' = 'sandbox') => h.request(env, 'POST', '/v1/webhook-endpoints', { key, body });
const endpointCount = async () =>
  Number((await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from webhook_endpoints where merchant_id = ?`, [m.id]))[0].n);

test('create returns the endpoint with its secret once; GET never shows it again', async () => {
  const res = await create({ url: 'https://hooks.example.com/payments', subscribed_events: ['transaction.succeeded'], description: 'orders' });
  expect(res.status).toBe(201);
  expect(res.json).toMatchObject({
    object: 'webhook_endpoint',
    url: 'https://hooks.example.com/payments',
    subscribed_events: ['transaction.succeeded'],
    description: 'orders',
    timeout_seconds: 10,
    status: 'active',
    health: { consecutive_failures: 0, last_failure_reason: null },
    livemode: false,
  });
  expect(res.json.id).toMatch(/^we_[A-Za-z0-9]{24}$/);
  expect(res.json.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
  expect(res.json.health).not.toHaveProperty('auto_disabled_at');

  const got = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${res.json.id}`, { key: m.testKey });
  expect(got.status).toBe(200);
  expect(got.json).not.toHaveProperty('secret');
  expect(got.text).not.toContain(res.json.secret);
  // Stored sealed: the database does not hold the secret in clear.
  const stored = await h.orm.em.getConnection().execute<{ secret_box: string }[]>(`select secret_box from webhook_endpoints where id = ?`, [res.json.id]);
  expect(stored[0].secret_box).not.toContain(res.json.secret);
  expect(h.deps.secretBox.open(stored[0].secret_box)).toBe(res.json.secret);
});

test('an empty subscribed_events list means every type; the defaults are filled in', async () => {
  const res = await create({ url: 'https://hooks.example.com/all' });
  expect(res.status).toBe(201);
  expect(res.json).toMatchObject({ subscribed_events: [], timeout_seconds: 10, description: null });
});

test.each([
  [{}, 'url'],
  [{ url: 42 }, 'url'],
  [{ url: 'https://hooks.example.com/x', subscribed_events: ['transaction.paid'] }, 'subscribed_events.0'],
  [{ url: 'https://hooks.example.com/x', subscribed_events: 'transaction.succeeded' }, 'subscribed_events'],
  [{ url: 'https://hooks.example.com/x', subscribed_events: ['transaction.failed', 'transaction.failed'] }, 'subscribed_events'],
  [{ url: 'https://hooks.example.com/x', timeout_seconds: 0 }, 'timeout_seconds'],
  [{ url: 'https://hooks.example.com/x', timeout_seconds: 31 }, 'timeout_seconds'],
  [{ url: 'https://hooks.example.com/x', timeout_seconds: 2.5 }, 'timeout_seconds'],
  [{ url: 'https://hooks.example.com/x', description: 'x'.repeat(501) }, 'description'],
  [{ url: 'https://hooks.example.com/x', secret: 'mine' }, 'secret'],
])('invalid body %j → 400 invalid_request on %s, nothing stored', async (body, param) => {
  const before = await endpointCount();
  expectError(await create(body), 400, 'invalid_request', param);
  expect(await endpointCount()).toBe(before);
});

test.each([
  ['http://hooks.example.com/x', 'sandbox'],
  ['https://internal.example.com/x', 'sandbox'],
  ['https://unknown-host.example.com/x', 'sandbox'],
  ['https://10.0.0.8/x', 'sandbox'],
  ['https://169.254.169.254/latest/meta-data', 'sandbox'],
  ['https://[::ffff:127.0.0.1]/x', 'sandbox'],
  ['https://127.0.0.1/x', 'live'],
  ['http://127.0.0.1:8080/x', 'live'],
  ['https://localhost/x', 'live'],
  ['http://127.0.0.2/x', 'sandbox'],
])('%s in %s → 400 invalid_webhook_url, nothing stored', async (url, env) => {
  const before = await endpointCount();
  const key = env === 'live' ? m.liveKey : m.testKey;
  expectError(await create({ url }, key, env as 'sandbox' | 'live'), 400, 'invalid_webhook_url', 'url');
  expect(await endpointCount()).toBe(before);
});

test('the local-development exemptions apply in the sandbox only', async () => {
  const sandbox = await create({ url: 'http://127.0.0.1:4000/hook' });
  expect(sandbox.status).toBe(201);
  expectError(await create({ url: 'http://127.0.0.1:4000/hook' }, m.liveKey, 'live'), 400, 'invalid_webhook_url', 'url');
  const live = await create({ url: 'https://hooks.example.com/live' }, m.liveKey, 'live');
  expect(live.status).toBe(201);
  expect(live.json.livemode).toBe(true);
});

test('PATCH changes fields, re-checks the url, and refuses an empty or unknown body', async () => {
  const { json: ep } = await create({ url: 'https://hooks.example.com/patch' });
  const path = `/v1/webhook-endpoints/${ep.id}`;
  const res = await h.request('sandbox', 'PATCH', path, { key: m.testKey, body: { description: 'renamed', subscribed_events: ['transaction.failed'], timeout_seconds: 5 } });
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ description: 'renamed', subscribed_events: ['transaction.failed'], timeout_seconds: 5, url: 'https://hooks.example.com/patch' });
  expect(res.json).not.toHaveProperty('secret');
  expectError(await h.request('sandbox', 'PATCH', path, { key: m.testKey, body: { url: 'https://internal.example.com/x' } }), 400, 'invalid_webhook_url', 'url');
  expectError(await h.request('sandbox', 'PATCH', path, { key: m.testKey, body: {} }), 400, 'invalid_request');
  expectError(await h.request('sandbox', 'PATCH', path, { key: m.testKey, body: { status: 'paused' } }), 400, 'invalid_request', 'status');
  const after = await h.request('sandbox', 'GET', path, { key: m.testKey });
  expect(after.json.url).toBe('https://hooks.example.com/patch');
});

test('PATCH status disabled pauses by hand (no auto_disabled_at); active re-enables', async () => {
  const { json: ep } = await create({ url: 'https://hooks.example.com/pause' });
  const path = `/v1/webhook-endpoints/${ep.id}`;
  const off = await h.request('sandbox', 'PATCH', path, { key: m.testKey, body: { status: 'disabled' } });
  expect(off.json.status).toBe('disabled');
  expect(off.json.health).not.toHaveProperty('auto_disabled_at');
  const on = await h.request('sandbox', 'PATCH', path, { key: m.testKey, body: { status: 'active' } });
  expect(on.json).toMatchObject({ status: 'active', health: { consecutive_failures: 0 } });
});

test('rotate-secret returns the new secret once and when the previous one stops signing', async () => {
  const { json: ep } = await create({ url: 'https://hooks.example.com/rotate' });
  const before = Date.now();
  const res = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key: m.testKey });
  expect(res.status).toBe(200);
  expect(res.json.secret).toMatch(/^whsec_/);
  expect(res.json.secret).not.toBe(ep.secret);
  const expires = Date.parse(res.json.previous_secret_expires_at);
  expect(expires - before).toBeGreaterThan(24 * 3600_000 - 60_000);
  expect(expires - before).toBeLessThan(24 * 3600_000 + 60_000);
  const got = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey });
  expect(got.json).not.toHaveProperty('secret');
  expect(got.json.previous_secret_expires_at).toBe(res.json.previous_secret_expires_at);
});

test('list pages newest first with a cursor; delete hides the endpoint', async () => {
  const other = await h.merchant();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await create({ url: `https://hooks.example.com/list-${i}` }, other.testKey)).json.id);
  const first = await h.request('sandbox', 'GET', '/v1/webhook-endpoints?limit=2', { key: other.testKey });
  expect(first.json.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
  expect(first.json.has_more).toBe(true);
  const second = await h.request('sandbox', 'GET', `/v1/webhook-endpoints?limit=2&cursor=${first.json.next_cursor}`, { key: other.testKey });
  expect(second.json.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
  expect(second.json.has_more).toBe(false);
  expectError(await h.request('sandbox', 'GET', '/v1/webhook-endpoints?cursor=bm9wZQ', { key: other.testKey }), 400, 'invalid_request', 'cursor');

  const del = await h.request('sandbox', 'DELETE', `/v1/webhook-endpoints/${ids[1]}`, { key: other.testKey });
  expect(del.json).toEqual({ id: ids[1], object: 'webhook_endpoint', deleted: true });
  expectError(await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ids[1]}`, { key: other.testKey }), 404, 'not_found', 'id');
  expectError(await h.request('sandbox', 'DELETE', `/v1/webhook-endpoints/${ids[1]}`, { key: other.testKey }), 404, 'not_found', 'id');
  const all = await h.request('sandbox', 'GET', '/v1/webhook-endpoints?limit=100', { key: other.testKey });
  expect(all.json.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[0]]);
});

test("another merchant's endpoint, or the other environment's, is not found", async () => {
  const { json: ep } = await create({ url: 'https://hooks.example.com/mine' });
  const stranger = await h.merchant();
  for (const [env, key] of [['sandbox', stranger.testKey], ['live', m.liveKey]] as const) {
    expectError(await h.request(env, 'GET', `/v1/webhook-endpoints/${ep.id}`, { key }), 404, 'not_found', 'id');
    expectError(await h.request(env, 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key, body: { status: 'active' } }), 404, 'not_found', 'id');
    expectError(await h.request(env, 'POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key }), 404, 'not_found', 'id');
    expectError(await h.request(env, 'GET', `/v1/webhook-endpoints/${ep.id}/deliveries`, { key }), 404, 'not_found', 'id');
  }
});

test('GET /v1/event-types is the list subscribed_events is checked against', async () => {
  const res = await h.request('sandbox', 'GET', '/v1/event-types', { key: m.testKey });
  expect(res.json.data.map((t: { type: string }) => t.type)).toEqual(EVENT_TYPES.map((t) => t.type));
  const every = await create({ url: 'https://hooks.example.com/every', subscribed_events: EVENT_TYPES.map((t) => t.type) });
  expect(every.status).toBe(201);
});
