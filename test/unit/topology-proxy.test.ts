/**
 * The topology's proxy (src/topology/proxy.ts) in front of two local backends: round robin; a backend
 * that refuses connections is skipped and its request goes to the other, once; a POST's body reaches
 * exactly one backend; no backend at all is a 503 with Retry-After in the API's error envelope.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../src/support/free-port';
import { DEFAULT_SERVER_LIMITS } from '../../src/http/server-limits';
import { startProxy } from '../../src/topology/proxy';

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

async function proxyTo(backends: number[]) {
  const listen = await freePort();
  const server = await startProxy({ listen, backends, style: 'api' }, DEFAULT_SERVER_LIMITS);
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
