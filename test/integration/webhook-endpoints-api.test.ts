/**
 * Webhook endpoints over HTTP (SPEC 2.3, 4.6–4.8; INTERFACE "Webhooks"): the secret shown once,
 * validation in the documented envelope with nothing written, the public-address rule with its
 * sandbox-only exemptions, PATCH, delete, lists, rotation, isolation between merchants and
 * environments, and an endpoint's deliveries filtered by event type and creation time (issue 49).
 */
import { EVENT_TYPES } from '../../src/domain/event-types';
import type { Caller } from '../../src/services/context';
import { newId } from '../../src/support/new-id';
import type { Resolver } from '../../src/webhooks/url-policy';
import { expectError } from '../support/api-errors';
import { startHarness, type ApiResponse, type Harness, type TestMerchant } from '../support/harness';
import { emitEvent } from '../support/webhook-fixtures';

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

describe('deliveries by event_type and created_after / created_before', () => {
  const T0 = Date.parse('2026-03-01T00:00:00.000Z');
  const hour = 3_600_000;
  const TYPES = ['transaction.succeeded', 'transaction.failed', 'refund.succeeded'];
  let owner: TestMerchant;
  let endpointId: string;
  /** Delivery i: created T0 + i hours, of TYPES[i % 3], failed when i is even; 9 of them, plus one on another endpoint. */
  const made: Array<{ id: string; at: number; type: string; status: string }> = [];

  /** A delivery written as the relay writes one, of an event of `type` (dispatched: no relay takes it), created at `at`. */
  async function delivery(endpoint: string, type: string, at: number, status: string): Promise<string> {
    const caller: Caller = { merchantId: owner.id, environment: 'sandbox', keyId: 'key_test', merchantVerified: false };
    const eventId = await emitEvent(h.orm, caller, type);
    const conn = h.orm.em.getConnection();
    await conn.execute(`update events set dispatched_at = now() where id = ?`, [eventId]);
    const id = newId('delivery');
    await conn.execute(
      `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, attempt_count, created_at, updated_at, completed_at, workflow_started_at)
       values (?, ?, ?, ?, 'sandbox', ?, ?, 1, ?::timestamptz, now(), ?::timestamptz, now())`,
      [id, endpoint, eventId, owner.id, type, status, new Date(at).toISOString(), new Date(at).toISOString()],
    );
    return id;
  }

  beforeAll(async () => {
    owner = await h.merchant();
    endpointId = (await create({ url: 'https://hooks.example.com/filtered' }, owner.testKey)).json.id;
    const elsewhere = (await create({ url: 'https://hooks.example.com/elsewhere' }, owner.testKey)).json.id;
    for (let i = 0; i < 9; i++) {
      const status = i % 2 ? 'succeeded' : 'failed';
      made.push({ id: await delivery(endpointId, TYPES[i % 3], T0 + i * hour, status), at: T0 + i * hour, type: TYPES[i % 3], status });
    }
    await delivery(elsewhere, 'transaction.succeeded', T0 + 4 * hour, 'failed');
  });

  const list = (query: string) => h.request('sandbox', 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?${query}`, { key: owner.testKey });
  const ids = (res: ApiResponse): string[] => res.json.data.map((d: { id: string }) => d.id);
  /** The newest-first ids of the made deliveries that `keep` keeps. */
  const expected = (keep: (d: (typeof made)[number]) => boolean) => made.filter(keep).map((d) => d.id).reverse();

  /** Every page of `query`, following next_cursor with the same filters; the ids and the pages' sizes. */
  async function walk(query: string): Promise<{ walked: string[]; sizes: number[] }> {
    const walked: string[] = [];
    const sizes: number[] = [];
    let cursor = '';
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(20);
      const res = await list(`${query}${cursor}`);
      expect(res.status).toBe(200);
      walked.push(...ids(res));
      sizes.push(ids(res).length);
      if (!res.json.has_more) return { walked, sizes };
      cursor = `&cursor=${res.json.next_cursor}`;
    }
  }

  test('event_type: one type, then two (repeated), paged with the filter', async () => {
    const one = await walk('event_type=transaction.succeeded&limit=2');
    expect(one).toEqual({ walked: expected((d) => d.type === 'transaction.succeeded'), sizes: [2, 1] });
    const two = await walk('event_type=transaction.succeeded&event_type=refund.succeeded&limit=2');
    expect(two).toEqual({ walked: expected((d) => d.type !== 'transaction.failed'), sizes: [2, 2, 2] });
    const res = await list('event_type=refund.succeeded');
    expect(res.json.data.every((d: { event_type: string; endpoint_id: string }) => d.event_type === 'refund.succeeded' && d.endpoint_id === endpointId)).toBe(true);
  });

  test('created_after / created_before: both exclusive, any offset, a date alone is midnight UTC; paged', async () => {
    // After T0 + 2 h (written at +01:00), before T0 + 6 h: 3, 4 and 5.
    const range = await walk('created_after=2026-03-01T03:00:00%2B01:00&created_before=2026-03-01T06:00:00Z&limit=2');
    expect(range).toEqual({ walked: expected((d) => d.at > T0 + 2 * hour && d.at < T0 + 6 * hour), sizes: [2, 1] });
    // The date alone: after midnight, so not the delivery created at midnight exactly.
    const afterMidnight = await walk('created_after=2026-03-01&limit=100');
    expect(afterMidnight.walked).toEqual(expected((d) => d.at > T0));
    expect(afterMidnight.walked).not.toContain(made[0].id);
    expect((await walk('created_before=2026-03-01T00:00:00.001Z')).walked).toEqual([made[0].id]);
  });

  test('every filter at once, with status: paged, and an empty page when nothing matches', async () => {
    const all = await walk('status=failed&event_type=transaction.succeeded&event_type=transaction.failed&created_after=2026-03-01&created_before=2026-03-01T09:00:00Z&limit=1');
    const want = expected((d) => d.status === 'failed' && d.type !== 'refund.succeeded' && d.at > T0);
    expect(want.length).toBe(2);
    expect(all).toEqual({ walked: want, sizes: [1, 1] });
    expect((await list('event_type=payout.failed')).json).toEqual({ object: 'list', data: [], has_more: false });
    expect((await list('created_after=2026-03-02')).json).toEqual({ object: 'list', data: [], has_more: false });
  });

  test.each([
    ['event_type=transaction.paid', 'event_type'],
    ['event_type=transaction.succeeded,refund.succeeded', 'event_type'],
    ['event_type=refund.succeeded&event_type=refund.succeeded', 'event_type'],
    ['event_type=', 'event_type'],
    ['created_after=2026-02-30', 'created_after'],
    ['created_after=yesterday', 'created_after'],
    ['created_before=2026-03-01T10:00:00', 'created_before'],
    ['created_after=2026-03-02&created_before=2026-03-01', 'created_before'],
    ['created_after=2026-03-01&created_before=2026-03-01', 'created_before'],
    ['created_after=2026-03-01&created_after=2026-03-02', 'created_after'],
    ['type=refund.succeeded', 'type'],
  ])('%s: 400 invalid_request naming %s', async (query, param) => {
    expectError(await list(query), 400, 'invalid_request', param);
  });

  test('the endpoint list refuses the deliveries\' filters, each by name', async () => {
    for (const [query, param] of [['status=failed', 'status'], ['event_type=transaction.succeeded', 'event_type'], ['created_after=2026-03-01', 'created_after'], ['created_before=2026-03-01', 'created_before']]) {
      const res = await h.request('sandbox', 'GET', `/v1/webhook-endpoints?${query}`, { key: owner.testKey });
      expectError(res, 400, 'invalid_request', param);
      expect(res.json.error.message).toBe(`${param} is not a filter of this list.`);
    }
  });
});
