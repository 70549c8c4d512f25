/**
 * `npm start` (src/main.ts) serves its three ports with the listener limits of
 * src/http/server-limits.ts (issue 32, "Hostile bodies and headers"), read from its HTTP_* settings:
 * here short timeouts, so that a slowloris client is cut in about a second. On the sandbox, live and
 * web ports: a header over the limit is 431, too many header lines 431, a slowloris client 408, each
 * in the port's format and closed, while the port serves others; a never-ending body on the sandbox
 * is 408. The same cases in detail, on servers made as main.ts makes them: hostile-connections.test.ts.
 */
import { cleanUp, demoKey, ready, startMain, type StartedMain } from '../support/npm-start';
import { openRaw } from '../support/raw-http';

let s: StartedMain;
const port = (name: 'sandbox' | 'live' | 'web') => (name === 'sandbox' ? s.ports.sandbox : Number(name === 'live' ? s.env.LIVE_PORT : s.env.WEB_PORT));

beforeAll(async () => {
  s = await startMain({ env: { HTTP_HEADERS_TIMEOUT_MS: '800', HTTP_REQUEST_TIMEOUT_MS: '1500', HTTP_MAX_HEADER_BYTES: '8192', HTTP_MAX_HEADERS: '50' } });
  await ready(s);
}, 180_000);
afterAll(async () => {
  if (s) await cleanUp(s);
}, 60_000);

describe.each(['sandbox', 'live', 'web'] as const)('the %s port of npm start', (name) => {
  const format = name === 'web' ? /^text\/plain/ : /^application\/json/;

  test('a header over HTTP_MAX_HEADER_BYTES (8 KiB): 431, closed', async () => {
    const c = await openRaw(port(name));
    c.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(9 * 1024)}\r\n\r\n`);
    const answer = await c.closed;
    expect({ status: answer.status, connection: answer.headers.connection }).toEqual({ status: 431, connection: 'close' });
    expect(answer.headers['content-type']).toMatch(format);
    if (name !== 'web') expect(JSON.parse(answer.body).error.code).toBe('request_headers_too_large');
  });

  test('51 header lines (HTTP_MAX_HEADERS 50): 431, closed', async () => {
    const c = await openRaw(port(name));
    c.write(`GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 49 }, (_, i) => `X-H${i}: 1\r\n`).join('')}Connection: close\r\n\r\n`);
    const answer = await c.closed;
    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toMatch(format);
  });

  test('a slowloris client: 408 within HTTP_HEADERS_TIMEOUT_MS (0.8 s) and a second of slack, closed; /health served meanwhile', async () => {
    const c = await openRaw(port(name));
    c.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    c.trickle((n) => `X-Slow-${n}: 1\r\n`, 100);
    const meanwhile = await fetch(`http://127.0.0.1:${port(name)}/health`);
    expect(meanwhile.status).toBe(200);
    const answer = await c.closed;
    expect({ status: answer.status, connection: answer.headers.connection }).toEqual({ status: 408, connection: 'close' });
    expect(answer.headers['content-type']).toMatch(format);
    expect(answer.closedAfterMs).toBeLessThan(800 + 1_500);
  });
});

test('a body that never ends on the sandbox port (the demo key, POST /v1/charges): 408 request_timeout within HTTP_REQUEST_TIMEOUT_MS (1.5 s) and slack, closed, no charge', async () => {
  const key = demoKey(s);
  const c = await openRaw(port('sandbox'));
  c.write(`POST /v1/charges HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nIdempotency-Key: hostile-npm-start-1\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"amount":`);
  c.trickle(() => ' ', 100);
  const answer = await c.closed;
  expect({ status: answer.status, connection: answer.headers.connection }).toEqual({ status: 408, connection: 'close' });
  expect(JSON.parse(answer.body).error.code).toBe('request_timeout');
  expect(answer.closedAfterMs).toBeLessThan(1_500 + 1_500);
  const list = await fetch(`http://127.0.0.1:${port('sandbox')}/v1/charges`, { headers: { authorization: `Bearer ${key}` } });
  expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
});
