/**
 * Hostile headers and slow clients (issue 32, "Hostile bodies and headers"): headers over the size
 * limit, too many header lines, a slowloris client and a body that never ends, on the sandbox and
 * live listeners (the partner's callback route included) and the web port, each served by
 * src/http/server-limits.ts `createLimitedServer` as src/main.ts serves them, with short timeouts.
 * Each is answered with a 4xx in the listener's format (the API's envelope, the web port's plain
 * page), `Connection: close`, the connection closed, nothing written; other requests are served
 * meanwhile. test/system/hostile-npm-start.test.ts checks that `npm start` serves its ports this way.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/http/app';
import { createLimitedServer, type RefusalStyle, type ServerLimits } from '../../src/http/server-limits';
import { createWebApp } from '../../src/web/app';
import { callbackToken } from '../../src/rail/momo-callback';
import { countRows } from '../support/db-counts';
import { chargeBody, HARNESS_CALLBACK_RATE_LIMIT, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { openRaw, type RawAnswer } from '../support/raw-http';

const LIMITS: ServerLimits = { headersTimeoutMs: 600, requestTimeoutMs: 1_200, maxHeaderBytes: 16 * 1024, maxHeaders: 100 };
/** How late past its timeout a refusal may come: Node checks every headersTimeout / 4 (150 ms), the machine is loaded. */
const SLACK_MS = 1_500;
const SECRET = 'hostile-connections-callback-secret';
const REFERENCE = '0b0c2b6e-4a55-4d2a-9d55-0d6f0c3a1a11';

let h: Harness;
let m: TestMerchant;
const servers: http.Server[] = [];
const ports: Record<'sandbox' | 'live' | 'web', number> = { sandbox: 0, live: 0, web: 0 };
/** The web app, made once its listener's port (its own URL) is known. */
let web: http.RequestListener = (_req, res) => res.end();

async function serve(handler: http.RequestListener, style: RefusalStyle): Promise<number> {
  const server = createLimitedServer(handler, LIMITS, style);
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  h = await startHarness({ worker: false, partnerCallbacks: { callbackSecret: SECRET } });
  m = await h.merchant();
  ports.sandbox = await serve(createApp(h.deps, { environment: 'sandbox', bodyLimitBytes: 64 * 1024, rateLimitPerSecond: 'off' }).callback(), 'api');
  // The harness's callback limit: the per-address count is one rate_limits row shared by every file on
  // this jest worker's database (callback-replay.test.ts sends 1,000 in a minute from 127.0.0.1).
  ports.live = await serve(createApp(h.deps, { environment: 'live', bodyLimitBytes: 64 * 1024, rateLimitPerSecond: 'off', callbackRateLimit: HARNESS_CALLBACK_RATE_LIMIT }).callback(), 'api');
  const webUrl = `http://127.0.0.1:${(ports.web = await serve((req, res) => web(req, res), 'web'))}`;
  web = createWebApp(h.deps, { webUrl, sandboxApiUrl: `http://127.0.0.1:${ports.sandbox}` }).callback();
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  await h?.close();
});

type Surface = 'sandbox' | 'live' | 'web';
const SURFACES: Surface[] = ['sandbox', 'live', 'web'];

/** The refusal in the surface's format: the API's envelope with `code`, or the web port's plain page. */
function expectRefusal(answer: RawAnswer, surface: Surface, status: number, code: string): void {
  expect({ status: answer.status, connection: answer.headers.connection }).toEqual({ status, connection: 'close' });
  expect(answer.headers['request-id']).toMatch(/^req_[A-Za-z0-9]+$/);
  if (surface === 'web') {
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.body).toContain(answer.headers['request-id']);
    return;
  }
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const json = JSON.parse(answer.body);
  expect(Object.keys(json)).toEqual(['error']);
  expect(json.error).toMatchObject({ type: 'invalid_request_error', code, request_id: answer.headers['request-id'] });
  expect(json.error.message.length).toBeGreaterThan(0);
}

/** A request each listener answers 200 (the API's /health is 503 here: no worker polls). */
const probe = (surface: Surface) => (surface === 'web' ? { path: '/health', headers: {} } : { path: '/v1/balances', headers: { authorization: `Bearer ${surface === 'live' ? m.liveKey : m.testKey}` } });
const healthOf = (surface: Surface) => fetch(`http://127.0.0.1:${ports[surface]}${probe(surface).path}`, { headers: probe(surface).headers });
const rawProbe = (surface: Surface) => `GET ${probe(surface).path} HTTP/1.1\r\nHost: x\r\n${Object.entries(probe(surface).headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}`;

describe.each(SURFACES)('the %s listener', (surface) => {
  test('a header over 16 KiB: 431, closed', async () => {
    const c = await openRaw(ports[surface]);
    c.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    const answer = await c.closed;
    expectRefusal(answer, surface, 431, 'request_headers_too_large');
    expect((await healthOf(surface)).status).toBe(200);
  });

  test('headers that add up to over 16 KiB (200 of 100 bytes): 431, closed', async () => {
    const c = await openRaw(ports[surface]);
    c.write(`GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 200 }, (_, i) => `X-H${i}: ${'b'.repeat(90)}\r\n`).join('')}\r\n`);
    expectRefusal(await c.closed, surface, 431, 'request_headers_too_large');
  });

  test('101 small header lines: 431, closed; 100 are served', async () => {
    const head = rawProbe(surface);
    const lines = (n: number) => Array.from({ length: n - head.split('\r\n').length + 1 }, (_, i) => `X-H${i}: 1\r\n`).join('');
    const over = await openRaw(ports[surface]);
    over.write(`${head}${lines(101)}Connection: close\r\n\r\n`);
    expectRefusal(await over.closed, surface, 431, 'request_headers_too_large');
    const ok = await openRaw(ports[surface]);
    ok.write(`${head}${lines(100)}Connection: close\r\n\r\n`);
    expect((await ok.closed).status).toBe(200);
  });

  test('a slowloris client (a header line every 100 ms, never the end): 408 within the headers timeout, closed; others served meanwhile', async () => {
    const c = await openRaw(ports[surface]);
    c.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    c.trickle((n) => `X-Slow-${n}: 1\r\n`, 100);
    let servedMeanwhile = 0;
    const others = (async () => {
      for (let i = 0; i < 5; i++) {
        if ((await healthOf(surface)).status === 200) servedMeanwhile++;
        await new Promise((r) => setTimeout(r, 60));
      }
    })();
    const answer = await c.closed;
    await others;
    expectRefusal(answer, surface, 408, 'request_timeout');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    expect(answer.closedAfterMs).toBeLessThan(LIMITS.headersTimeoutMs + SLACK_MS);
    expect(servedMeanwhile).toBe(5);
  });

  test('bytes that are not HTTP: 400, closed', async () => {
    const c = await openRaw(ports[surface]);
    c.write('HELLO THERE\r\n\r\n');
    expectRefusal(await c.closed, surface, 400, 'invalid_request');
  });
});

describe('a body that never ends', () => {
  test('POST /v1/charges (sandbox) announcing 10,000 bytes, sending 100 then a byte every 100 ms: 408 within the request timeout, closed, nothing written; others served meanwhile', async () => {
    const before = await countRows(h.orm, m.id);
    const body = JSON.stringify(chargeBody());
    const c = await openRaw(ports.sandbox);
    c.write(`POST /v1/charges HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${m.testKey}\r\nIdempotency-Key: ${idempotencyKey()}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n${body.slice(0, 100)}`);
    c.trickle(() => ' ', 100);
    const meanwhile = await fetch(`http://127.0.0.1:${ports.sandbox}/v1/balances`, { headers: { authorization: `Bearer ${m.testKey}` } });
    expect(meanwhile.status).toBe(200);
    const answer = await c.closed;
    expectRefusal(answer, 'sandbox', 408, 'request_timeout');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(LIMITS.requestTimeoutMs - 50);
    expect(answer.closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs + SLACK_MS);
    expect(await countRows(h.orm, m.id)).toEqual(before);
  });

  test('a chunked body that never ends on POST /v1/webhook-endpoints (live): 408, closed, no endpoint', async () => {
    const c = await openRaw(ports.live);
    c.write(`POST /v1/webhook-endpoints HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${m.liveKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`);
    c.trickle(() => '1\r\n \r\n', 100);
    const answer = await c.closed;
    expectRefusal(answer, 'live', 408, 'request_timeout');
    expect(answer.closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs + SLACK_MS);
    const rows = await h.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from webhook_endpoints where merchant_id = ?', [m.id]);
    expect(Number(rows[0].n)).toBe(0);
  });

  test("the partner's callback route (live), a genuine token: 408, closed, no signal claimed", async () => {
    const count = async () => Number((await h.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from partner_callback_signals'))[0].n);
    const before = await count();
    const c = await openRaw(ports.live);
    c.write(`PUT /partner/momo/callbacks/collection/${REFERENCE}?token=${callbackToken(SECRET, 'collection', REFERENCE)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"status":`);
    c.trickle(() => ' ', 100);
    const answer = await c.closed;
    expectRefusal(answer, 'live', 408, 'request_timeout');
    expect(await count()).toBe(before);
  });

  test('the sign-in form on the web port: 408 plain page, closed', async () => {
    const c = await openRaw(ports.web);
    c.write(`POST /sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail=a`);
    c.trickle(() => 'a', 100);
    const answer = await c.closed;
    expectRefusal(answer, 'web', 408, 'request_timeout');
    expect(answer.closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs + SLACK_MS);
  });
});

test('a slow answer is not cut: the request timeout bounds receiving the request, not the answer (a charge create may wait on Temporal longer)', async () => {
  const port = await serve((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.end('late but whole'), LIMITS.requestTimeoutMs + 600));
  }, 'api');
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x' });
  expect({ status: res.status, text: await res.text() }).toEqual({ status: 200, text: 'late but whole' });
});

test('the limits are checked at start: a request timeout shorter than the headers timeout is refused', () => {
  expect(() => createLimitedServer(() => undefined, { ...LIMITS, requestTimeoutMs: 100 }, 'api')).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
});
