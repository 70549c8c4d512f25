import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebApp } from '../../src/web/app';
import { startHarness, type Harness } from '../support/harness';

/** The web port's app (src/web/app.ts): its own health answer and the browser headers every page gets. */

let h: Harness;
let server: http.Server;
let url: string;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  server = http.createServer(createWebApp(h.deps, { webUrl: 'http://127.0.0.1:0', sandboxApiUrl: h.urls.sandbox }).callback());
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((ok) => server?.close(ok));
  await h?.close();
});

test('health, and strict browser headers on every answer, a 404 included', async () => {
  for (const [path, status] of [
    ['/health', 200],
    ['/no-such-page', 404],
  ] as const) {
    const res = await fetch(url + path);
    expect({ path, status: res.status }).toEqual({ path, status });
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
  }
});
