/**
 * The topology's proxy (src/topology/proxy.ts) in front of two local backends: round robin; a backend
 * that refuses connections is skipped and its request goes to the other, once; a POST's body reaches
 * exactly one backend; no backend at all is a 503 with Retry-After in the API's error envelope; a
 * backend that accepts and never answers (a stopped API) costs a GET the hedge and a POST the bound.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../src/support/free-port';
import { DEFAULT_SERVER_LIMITS } from '../../src/http/server-limits';
import { startProxy, type ProxyTiming } from '../../src/topology/proxy';

interface Backend {
  port: number;
  seen: Array<{ method: string; url: string; body: string }>;
  close(): Promise<void>;
}

async function backend(name: string, port = 0): Promise<Backend> {
  const seen: Backend['seen'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body });
      res.writeHead(200, { 'content-type': 'text/plain', 'x-backend': name });
      res.end(name);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
});

async function proxyTo(backends: number[], timing?: ProxyTiming) {
  const listen = await freePort();
  const server = await startProxy({ listen, backends, style: 'api' }, DEFAULT_SERVER_LIMITS, '127.0.0.1', timing);
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${listen}`;
}

test('round robin over both backends; a POST body reaches one backend once', async () => {
  const [a, b] = [await backend('a'), await backend('b')];
  closers.push(a.close, b.close);
  const url = await proxyTo([a.port, b.port]);
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await (await fetch(`${url}/v1/balances?i=${i}`)).text());
  expect(answers).toEqual(['a', 'b', 'a', 'b']);
  const posted = await fetch(`${url}/v1/charges`, { method: 'POST', body: '{"amount":1}', headers: { 'content-type': 'application/json' } });
  expect(posted.status).toBe(200);
  expect([...a.seen, ...b.seen].filter((s) => s.method === 'POST')).toEqual([{ method: 'POST', url: '/v1/charges', body: '{"amount":1}' }]);
});

test('a backend that refuses connections is skipped: every request, GET or POST, is answered by the other, once', async () => {
  const a = await backend('a');
  const dead = await freePort();
  closers.push(a.close);
  const url = await proxyTo([dead, a.port]);
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await fetch(`${url}/v1/x`, { method: i % 2 ? 'POST' : 'GET', body: i % 2 ? `body-${i}` : undefined })).status);
  expect(statuses).toEqual([200, 200, 200, 200]);
  expect(a.seen.map((s) => `${s.method} ${s.body}`)).toEqual(['GET ', 'POST body-1', 'GET ', 'POST body-3']);
});

test('no backend reachable: 503 with Retry-After in the error envelope', async () => {
  const url = await proxyTo([await freePort(), await freePort()]);
  const res = await fetch(`${url}/v1/balances`);
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('2');
  expect(((await res.json()) as { error: { code: string; type: string } }).error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
});

/** A backend that takes requests and never answers (an API process under SIGSTOP: the kernel still accepts connections). */
async function frozen(): Promise<Backend> {
  const seen: Backend['seen'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => seen.push({ method: req.method!, url: req.url!, body }));
  });
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('a backend that accepts and never answers: a GET goes on to the other after the hedge, and the stuck one is skipped for a while', async () => {
  const [stuck, a] = [await frozen(), await backend('a')];
  closers.push(stuck.close, a.close);
  const url = await proxyTo([stuck.port, a.port], { hedgeAfterMs: 200, answerBoundMs: 600 });
  const t0 = performance.now();
  const got = await fetch(`${url}/health`);
  expect({ status: got.status, from: await got.text() }).toEqual({ status: 200, from: 'a' });
  expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
  expect(stuck.seen.map((s) => s.url)).toEqual(['/health']);
  // The next GET goes straight to the other.
  const t1 = performance.now();
  expect(await (await fetch(`${url}/health`)).text()).toBe('a');
  expect(performance.now() - t1).toBeLessThan(190);
});

test('a POST to a backend that never answers is not sent on: 503 with Retry-After at the bound, the other backend never sees it', async () => {
  const [stuck, a] = [await frozen(), await backend('a')];
  closers.push(stuck.close, a.close);
  // A fresh proxy starts its round robin at the first backend: the stuck one.
  const url = await proxyTo([stuck.port, a.port], { hedgeAfterMs: 100, answerBoundMs: 500 });
  const t0 = performance.now();
  const posted = await fetch(`${url}/v1/charges`, { method: 'POST', body: 'once', headers: { 'content-type': 'application/json' } });
  expect(performance.now() - t0).toBeGreaterThanOrEqual(480);
  expect(posted.status).toBe(503);
  expect(posted.headers.get('retry-after')).toBe('2');
  expect(((await posted.json()) as { error: { message: string } }).error.message).toMatch(/did not answer in time; retry with the same Idempotency-Key/);
  expect({ stuck: stuck.seen.map((s) => s.body), a: a.seen.map((s) => s.body) }).toEqual({ stuck: ['once'], a: [] });
});

test('the last backend left is waited on up to the bound, GET or not', async () => {
  const stuck = await frozen();
  closers.push(stuck.close);
  const url = await proxyTo([stuck.port], { hedgeAfterMs: 100, answerBoundMs: 500 });
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/balances`);
  expect(res.status).toBe(503);
  expect(performance.now() - t0).toBeGreaterThanOrEqual(480);
});
