import net from 'node:net';
import type http from 'node:http';
import { loadConfig } from '../../src/config';
import { freePort } from '../../src/support/free-port';
import { createApiMetrics, serveMetrics } from '../../src/support/metrics';
import { listening } from '../../src/support/metrics-listener';
import { openRaw } from '../support/raw-http';
import { chargeBody, idempotencyKey, startHarness, type Harness } from '../support/harness';
import { startWorkerChild, type WorkerChild } from '../support/worker-child';

let h: Harness;
let worker: WorkerChild | undefined;
let metricsPort: number;
/** METRICS_TOKEN of this suite's worker and API metrics listeners. */
const TOKEN = 'metrics-token-of-this-suite-42';
const bearer = { authorization: `Bearer ${TOKEN}` };
/** Short HTTP_* limits, so a slow client's refusal shows quickly. */
const LIMITS = { headersTimeoutMs: 600, requestTimeoutMs: 1_200, maxHeaderBytes: 16 * 1024, maxHeaders: 100 };
const LIMITS_ENV = { HTTP_HEADERS_TIMEOUT_MS: '600', HTTP_REQUEST_TIMEOUT_MS: '1200' };

beforeAll(async () => {
  h = await startHarness({ worker: false });
  metricsPort = await freePort();
  // HOST=0.0.0.0 as in the image: the metrics listener still binds 127.0.0.1 (METRICS_HOST unset).
  worker = await startWorkerChild({ taskQueue: h.taskQueue, env: { WORKER_METRICS_PORT: String(metricsPort), HOST: '0.0.0.0', METRICS_TOKEN: TOKEN, ...LIMITS_ENV } });
});
afterAll(async () => {
  await worker?.stop();
  await h?.close();
});

test('the API counts requests by route template and charge creates by result', async () => {
  const merchant = await h.merchant();
  const key = idempotencyKey();
  const first = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body: chargeBody(), headers: { 'Idempotency-Key': key } });
  expect(first.status).toBe(200);
  const again = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body: chargeBody(), headers: { 'Idempotency-Key': key } });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  await h.request('sandbox', 'GET', `/v1/charges/${first.json.id}`, { key: merchant.testKey });

  const text = await h.deps.metrics!.registry.metrics();
  expect(text).toContain('payments_charge_creates_total{environment="sandbox",result="accepted"} 1');
  expect(text).toContain('payments_charge_creates_total{environment="sandbox",result="replayed"} 1');
  expect(text).toContain('payments_http_requests_total{method="GET",route="/v1/charges/:id",status="200",environment="sandbox"} 1');
  expect(text).not.toContain(first.json.id);
});

test('the worker exports the SDK metrics and the charge transitions it wrote', async () => {
  const merchant = await h.merchant();
  const created = await h.request('sandbox', 'POST', '/v1/charges', {
    key: merchant.testKey,
    body: chargeBody({ metadata: { sandbox_outcome: 'declined' } }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect((await h.settled(created.json.id)).status).toBe('failed');
  // The SDK exports on an interval (1 s): read until the counter shows up, a bounded number of times.
  let text = '';
  for (let i = 0; i < 50 && !/payments_charge_transitions\{[^}]*to="failed"/.test(text); i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: bearer })).text();
  }
  expect(text).toMatch(/payments_charge_transitions\{[^}]*failure_class="declined"[^}]*to="failed"[^}]*\} 1|payments_charge_transitions\{[^}]*to="failed"[^}]*failure_class="declined"[^}]*\} 1/);
  expect(text).toContain('temporal_workflow_completed');
});

/** Whether anything accepts a TCP connection at host:port (127.0.0.2 is loopback too, but not 127.0.0.1: only a wildcard bind answers there). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Issue 47, finding 3: what a metrics listener must do, whichever process serves it. */
async function expectGuardedListener(port: number): Promise<void> {
  // Bound to 127.0.0.1 only, though HOST=0.0.0.0.
  expect(await accepts('127.0.0.1', port)).toBe(true);
  expect(await accepts('127.0.0.2', port)).toBe(false);
  // METRICS_TOKEN: 401 without it or with another, the metrics with it.
  for (const headers of [{}, { authorization: 'Bearer metrics-token-of-this-suite-43' }, { authorization: `Basic ${TOKEN}` }, { authorization: TOKEN }]) {
    const refused = await fetch(`http://127.0.0.1:${port}/metrics`, { headers });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = await refused.text();
    expect(body).not.toContain('# TYPE');
    expect(body).not.toContain(TOKEN);
  }
  const ok = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: bearer });
  expect(ok.status).toBe(200);
  expect(await ok.text()).toContain('# TYPE');
  expect((await fetch(`http://127.0.0.1:${port}/other`, { headers: bearer })).status).toBe(404);
  // The API listeners' hostile-input limits: a slowloris client is answered 408 and closed within the headers timeout.
  const slow = await openRaw(port);
  slow.write(`GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n`);
  slow.trickle((n) => `X-Slow-${n}: 1\r\n`, 100);
  const answer = await slow.closed;
  expect({ status: answer.status, connection: answer.headers.connection }).toEqual({ status: 408, connection: 'close' });
  expect(answer.closedAfterMs).toBeLessThan(LIMITS.headersTimeoutMs + 1_500);
  // Headers over 16 KiB: 431, closed.
  const big = await openRaw(port);
  big.write(`GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
  expect((await big.closed).status).toBe(431);
}

test("issue 47: the worker's metrics listener binds 127.0.0.1 whatever HOST is, needs METRICS_TOKEN when set, and has the HTTP_* limits", async () => {
  await expectGuardedListener(metricsPort);
});

test("issue 47: the API's metrics listener, as main.ts starts it from the settings (HOST=0.0.0.0, METRICS_HOST unset): the same", async () => {
  const config = loadConfig({ HOST: '0.0.0.0', METRICS_TOKEN: TOKEN });
  expect(config.metricsHost).toBe('127.0.0.1');
  expect(loadConfig({ HOST: '0.0.0.0', METRICS_HOST: '0.0.0.0' }).metricsHost).toBe('0.0.0.0');
  expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be at least 16 characters/);
  const server: http.Server = serveMetrics(createApiMetrics(), 0, config.metricsHost, { token: config.metricsToken, limits: LIMITS });
  try {
    await expectGuardedListener(await listening(server));
  } finally {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  }
});
