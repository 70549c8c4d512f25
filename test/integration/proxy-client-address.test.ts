import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import { Agent, fetch as undiciFetch } from 'undici';
import { createApp } from '../../src/http/app';
import { HEALTH_CACHE_MS } from '../../src/http/routes/health';
import { PARTNER_CALLBACK_SIGNAL } from '../../src/domain/live-rail';
import { AGGREGATOR_WEBHOOK_ROUTE } from '../../src/rail/aggregator/webhook-route';
import { callbackToken } from '../../src/rail/momo-callback';
import type { FakePartner } from '../../src/rail/fake-partner';
import { randomBase62 } from '../../src/support/new-id';
import type { TrustedProxies } from '../../src/support/trusted-proxies';
import { chargeBody, HARNESS_RATE_LIMIT, idempotencyKey, type Harness, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { PortalClient } from '../support/portal-client';
import { newPortalUser, startPortalWeb, type PortalWeb } from '../support/portal-web';
import { until } from '../support/webhook-fixtures';

/**
 * Issue 47, findings 2 and 5 (docs/security.md "Client address and proxies"), on the real stack
 * (PostgreSQL's rate_limits rows, the Temporal dev server, a live worker, the fake partner):
 * - behind a proxy named by TRUSTED_PROXIES, each client has its own per-address buckets (the portal's
 *   sign-in, the API's requests without a key, the partner callbacks), and the access log names it;
 *   without the setting, X-Forwarded-For is never believed;
 * - an IPv6 client counts by its /64;
 * - the partner callbacks and the aggregator's webhooks have a per-address limit: past it, 429 and
 *   nothing signalled;
 * - a flood of /health costs one computation of its checks.
 * Every request here comes from 127.0.0.1, the "proxy"; the clients are the X-Forwarded-For it adds.
 */

const T = temporal.api.enums.v1.EventType;
const PROXY: TrustedProxies = { kind: 'addresses', addresses: ['127.0.0.1'] };

let partner: PartnerHarness;
let h: Harness;
let fake: FakePartner;
let m: TestMerchant;
let proxied: PortalWeb;
const servers: http.Server[] = [];

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: ['live'], timeoutMs: 500 });
  ({ h, fake } = partner);
  m = await h.merchant({ verified: true });
  proxied = await startPortalWeb(h, { trustedProxies: PROXY });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  await proxied?.close();
  await partner?.close();
});

/** A client address of its own in a documentation range (each test's buckets never meet another's, nor another run's). */
const ipv4 = () => `198.51.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const hex = () => Math.floor(Math.random() * 0xffff).toString(16);
/** The first four groups of an IPv6 /64 of its own. */
const ipv6Network = () => `2001:db8:${hex()}:${hex()}`;
/** A loopback address of its own to connect from (the whole 127/8 is the loopback interface on Linux). */
const loopback = () => `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const unknownEmail = () => `nobody-${randomBase62(10).toLowerCase()}@shop.example`;

/**
 * The sign-in form (GET for its cookie and token, then POST) with `forwardedFor` as X-Forwarded-For,
 * sent from 127.0.0.1 (the proxy), or from the loopback address `from`.
 */
async function signIn(url: string, email: string, password: string, forwardedFor: string, from?: string): Promise<{ status: number; message: string | undefined }> {
  const dispatcher = from ? new Agent({ localAddress: from }) : undefined;
  try {
    const headers = { 'x-forwarded-for': forwardedFor };
    const page = await undiciFetch(`${url}/sign-in`, { headers, ...(dispatcher ? { dispatcher } : {}) });
    const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = PortalClient.csrfOf(await page.text());
    const res = await undiciFetch(`${url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, email, password }).toString(),
      ...(dispatcher ? { dispatcher } : {}),
    });
    return { status: res.status, message: /id="sign-in-error">([^<]*)</.exec(await res.text())?.[1] };
  } finally {
    await dispatcher?.close();
  }
}

/** An API app on its own port (test/support/harness.ts's deps). */
async function listen(app: ReturnType<typeof createApp>): Promise<string> {
  const server = http.createServer(app.callback());
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('finding 2: behind one trusted proxy, 50 refused sign-ins from one client answer 429 to that client alone; another signs in', async () => {
  const { email, password } = await newPortalUser(h.orm, m.id);
  const [mallory, alice] = [ipv4(), ipv4()];
  // 50 refused attempts (the default per-address limit): one email, so after its lock-out no more password checks.
  const target = unknownEmail();
  const answers: number[] = [];
  for (let i = 0; i < 50; i++) answers.push((await signIn(proxied.url, target, 'wrong-password', mallory)).status);
  expect(answers.every((s) => s === 401 || s === 429)).toBe(true);
  const mallorysNext = await signIn(proxied.url, unknownEmail(), 'wrong-password', mallory);
  expect(mallorysNext).toEqual({ status: 429, message: expect.stringMatching(/^Too many sign-in attempts\./) });
  // On 83c79c5 every client of the proxy shared 127.0.0.1's bucket: Alice was refused too.
  expect(await signIn(proxied.url, email, password, alice)).toEqual({ status: 303, message: undefined });
  // The client is the hop the proxy appended: what the client wrote itself before it is not believed.
  expect((await signIn(proxied.url, unknownEmail(), 'wrong-password', `${ipv4()}, ${mallory}`)).status).toBe(429);
});

test('finding 2: without TRUSTED_PROXIES a forged X-Forwarded-For is ignored: the socket address is the bucket', async () => {
  const direct = await startPortalWeb(h, { signInLimits: { perAddress: 3, perAccount: 100, windowSeconds: 60 } });
  try {
    // All from one loopback address, each claiming another client: one bucket all the same.
    const from = loopback();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await signIn(direct.url, unknownEmail(), 'wrong-password', ipv4(), from)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect((await signIn(direct.url, unknownEmail(), 'wrong-password', ipv4(), from)).message).toMatch(/^Too many sign-in attempts\./);
    // Another socket address is another bucket.
    expect((await signIn(direct.url, unknownEmail(), 'wrong-password', ipv4(), loopback())).status).toBe(401);
  } finally {
    await direct.close();
  }
});

test('finding 2: every address of one IPv6 /64 shares a bucket; the next /64 has its own', async () => {
  const limited = await startPortalWeb(h, { trustedProxies: PROXY, signInLimits: { perAddress: 3, perAccount: 100, windowSeconds: 60 } });
  try {
    const network = ipv6Network();
    for (const host of ['a', 'b', 'c']) expect((await signIn(limited.url, unknownEmail(), 'wrong-password', `${network}::${host}`)).status).toBe(401);
    // A fourth address of the same /64 (written in full): its limit is spent.
    expect((await signIn(limited.url, unknownEmail(), 'wrong-password', `${network}:1234:5678:9abc:def0`)).status).toBe(429);
    // Another /64 is another bucket, and an IPv4-mapped address is the IPv4 client it maps, not one ::/64 for all.
    expect((await signIn(limited.url, unknownEmail(), 'wrong-password', `${ipv6Network()}::a`)).status).toBe(401);
    expect((await signIn(limited.url, unknownEmail(), 'wrong-password', `::ffff:${ipv4()}`)).status).toBe(401);
  } finally {
    await limited.close();
  }
});

test('finding 2, the API listeners: requests without a valid key count per client behind the proxy, and the access log names the client', async () => {
  const url = await listen(createApp(h.deps, { environment: 'sandbox', bodyLimitBytes: 64 * 1024, rateLimitPerSecond: 2, trustedProxies: PROXY }));
  const info = jest.spyOn(h.deps.log, 'info');
  try {
    const ask = (client: string) => fetch(`${url}/v1/balances`, { headers: { 'x-forwarded-for': client } }).then((r) => r.status);
    const [mallory, alice] = [ipv4(), ipv4()];
    // 2 a second, 2 more per 10 s: the fifth in a burst is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await ask(mallory));
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    expect(await ask(alice)).toBe(401);
    const logged = info.mock.calls.map(([fields]) => fields as { clientAddress?: string; path?: string }).filter((f) => f?.path === '/v1/balances');
    expect(logged.map((f) => f.clientAddress)).toEqual([mallory, mallory, mallory, mallory, mallory, alice]);
  } finally {
    info.mockRestore();
  }
});

describe('finding 5: the partner callbacks and the aggregator webhooks', () => {
  const sql = <R>(text: string, params: unknown[] = []) => h.orm.em.getConnection().execute<R[]>(text, params);

  async function signalsIn(workflowId: string): Promise<number> {
    const events = (await h.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    return events.filter((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED && e.workflowExecutionSignaledEventAttributes?.signalName === PARTNER_CALLBACK_SIGNAL).length;
  }
  const claims = async (paymentId: string) => (await sql<{ signals: number }>(`select signals from partner_callback_signals where payment_id = ?`, [paymentId]))[0]?.signals ?? 0;

  afterEach(() => {
    delete h.deps.partnerCallbacks!.debounceMs;
  });

  test('past CALLBACK_RATE_LIMIT from one address: 429 with Retry-After and nothing signalled; another address still wakes the payment', async () => {
    // A live request-to-pay the partner keeps PENDING (0004), with its reference.
    const created = await h.request('live', 'POST', '/v1/charges', {
      key: m.liveKey,
      body: chargeBody({ customer: { identifier: '233240000004', name: 'Kofi Boateng' }, reference: `proxy-${idempotencyKey()}` }),
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(created.status).toBe(200);
    const id: string = created.json.id;
    const ref = await until('the charge submitted to the partner', async () => {
      const rows = await sql<{ reference_id: string }>(`select reference_id::text from rail_references where payment_id = ?`, [id]);
      return rows[0] && fake.transaction('collection', rows[0].reference_id) ? rows[0].reference_id : undefined;
    });
    // Every genuine callback signals (no debounce), so a signal not sent shows.
    h.deps.partnerCallbacks!.debounceMs = 0;
    const url = await listen(createApp(h.deps, { environment: 'live', bodyLimitBytes: 64 * 1024, rateLimitPerSecond: HARNESS_RATE_LIMIT, trustedProxies: PROXY, callbackRateLimit: 3 }));
    const body = JSON.stringify(fake.transaction('collection', ref)!.state);
    const callback = (client: string) =>
      fetch(`${url}/partner/momo/callbacks/collection/${ref}?token=${callbackToken(partner.callbackSecret, 'collection', ref)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
        body,
      });
    const [flooder, partnerAddress] = [ipv4(), ipv4()];
    const signalsBefore = await signalsIn(id);
    // The signals in the workflow's history (a signal that arrives during a workflow task is written after it).
    const signalled = (n: number) => until(`${n} signals`, async () => (await signalsIn(id)) - signalsBefore >= n && (await signalsIn(id)) - signalsBefore);
    for (let i = 0; i < 3; i++) expect((await callback(flooder)).status).toBe(200);
    expect(await claims(id)).toBe(3);
    await signalled(3);

    const refused = await callback(flooder);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    // The aggregator's webhooks count in the same bucket, before their hash is checked.
    const webhook = await fetch(`${url}${AGGREGATOR_WEBHOOK_ROUTE}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': flooder }, body: '{}' });
    expect(webhook.status).toBe(429);
    expect(await claims(id)).toBe(3);

    // The partner at its own address is not held back by the flood; its callback is the one more signal.
    expect((await callback(partnerAddress)).status).toBe(200);
    expect(await claims(id)).toBe(4);
    await signalled(4);
    await delay(500);
    expect((await signalsIn(id)) - signalsBefore).toBe(4);
  });
});

test('finding 5: 50 concurrent /health share one computation of the checks; the first after the cache second computes again', async () => {
  const computations = async () => {
    const metric = await h.deps.metrics!.healthChecks.get();
    return metric.values.filter((v) => v.labels.environment === 'sandbox').reduce((sum, v) => sum + v.value, 0);
  };
  await delay(HEALTH_CACHE_MS + 100); // whatever an earlier /health of this listener computed has expired
  const before = await computations();
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: 50 }, async () => {
      const res = await fetch(`${h.urls.sandbox}/health`);
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
    }),
  );
  const tookMs = Date.now() - started;
  // One computation for all 50 when they come within the cache second (the bound is then 1). On a loaded machine (a whole
  // npm test at load 11, 2026-11-30) the 50 took longer than that to arrive: each cache second may then
  // start one more computation (src/support/cached-for.ts), never one per request.
  const computed = (await computations()) - before;
  expect(computed).toBeGreaterThanOrEqual(1);
  expect(computed).toBeLessThanOrEqual(1 + Math.floor(tookMs / HEALTH_CACHE_MS));
  // The answer as before: no sandbox worker here, so 503 naming it, with Retry-After, 50 times alike.
  expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ status: 503, retryAfter: '2', body: { status: 'unavailable', database: true, temporal: true, worker: false } })]));
  await delay(HEALTH_CACHE_MS + 100);
  expect((await fetch(`${h.urls.sandbox}/health`)).status).toBe(503);
  expect(await computations()).toBe(before + computed + 1);
});
