/**
 * /health reports each dependency the create path needs (issue 7, defect 2): 200 {"status":"ok"}
 * only when PostgreSQL answers, Temporal answers and a worker polls the task queue; otherwise 503
 * naming the part that is missing. An unreachable database on an API request is 503
 * `service_unavailable` with `Retry-After`, not 500.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { createApp } from '../../src/http/app';
import { openOrm, type Orm } from '../../src/persistence/orm';
import { expectError } from '../support/api-errors';
import { startHarness, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(() => h?.close());

const health = () => h.request('sandbox', 'GET', '/health');

test('no worker polling the task queue: 503 naming the worker; with a worker: 200 ok', async () => {
  const without = await health();
  expect({ status: without.status, body: without.json }).toEqual({
    status: 503,
    body: { status: 'unavailable', database: true, temporal: true, worker: false },
  });
  // Like every 503 of the API (issue 32: the chaos runs found /health's without it).
  expect(without.headers.get('retry-after')).toBe('2');

  await h.startWorker();
  // The worker's first poll reaches the server shortly after it starts; ask again until it shows (bounded).
  let withWorker = await health();
  for (let i = 0; i < 50 && withWorker.status !== 200; i++) {
    await delay(200);
    withWorker = await health();
  }
  expect({ status: withWorker.status, body: withWorker.json }).toEqual({ status: 200, body: { status: 'ok' } });
});

describe('database unreachable', () => {
  let server: http.Server;
  let url: string;
  let deadOrm: Orm;

  beforeAll(async () => {
    // Nothing listens on port 1: every connection attempt is refused at once.
    deadOrm = await openOrm('postgresql://nobody:nothing@127.0.0.1:1/none', { poolMax: 1, timeouts: { lockTimeoutMs: 1000, statementTimeoutMs: 1000, acquireTimeoutMs: 1000 } });
    server = http.createServer(createApp({ ...h.deps, orm: deadOrm }, { environment: 'sandbox', bodyLimitBytes: 64 * 1024 }).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await deadOrm?.close();
  });

  test('an API request is 503 service_unavailable with Retry-After', async () => {
    // A well-formed key, so authentication needs the database.
    const response = await fetch(`${url}/v1/balances`, { headers: { authorization: `Bearer svc_test_${'a'.repeat(32)}` } });
    const text = await response.text();
    expectError({ status: response.status, headers: response.headers, text, json: JSON.parse(text) }, 503, 'service_unavailable');
    expect(response.headers.get('retry-after')).toBe('2');
  });

  test('/health is 503 with database: false', async () => {
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toMatchObject({ status: 'unavailable', database: false, temporal: true });
  });
});
