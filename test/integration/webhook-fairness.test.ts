/**
 * Webhook delivery is fair per merchant (issue 9, item 3), against the real PostgreSQL, Temporal dev
 * server, worker and a local receiver:
 *  - at most WEBHOOK_MAX_ENDPOINTS endpoints per merchant and environment: one more is 422
 *    `endpoint_limit_reached` in the error envelope, nothing written, also under concurrent creates;
 *  - the outbox relay claims events in round robin over merchants: a flood of one merchant's events
 *    does not keep another merchant's event out of the next pass;
 *  - the worker holds a per-merchant send slot (WEBHOOK_MERCHANT_CONCURRENCY) while it sends: one
 *    merchant whose endpoint hangs cannot take every activity slot, another merchant's delivery is
 *    sent meanwhile.
 */
import { randomBase62 } from '../../src/support/new-id';
import { createLogger } from '../../src/support/logger';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import { relayOnce } from '../../src/webhooks/outbox-relay';
import type { Resolver } from '../../src/webhooks/url-policy';
import { expectError } from '../support/api-errors';
import { startHarness, type Harness } from '../support/harness';
import { emitEvent, sandboxCaller, until } from '../support/webhook-fixtures';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';

const resolve: Resolver = async (host) => (host === 'hooks.example.com' ? ['93.184.216.34'] : []);

let h: Harness;
let rx: TestReceiver;
beforeAll(async () => {
  h = await startHarness({ worker: false, resolve, webhookEnv: { WEBHOOK_MAX_ENDPOINTS: '3', WEBHOOK_MERCHANT_CONCURRENCY: '1' } });
  rx = await startTestReceiver();
});
afterAll(async () => {
  await rx?.close();
  await h?.close();
});

const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const liveEndpoints = async (merchantId: string, environment = 'sandbox') =>
  Number((await sql<{ n: string }>(`select count(*) as n from webhook_endpoints where merchant_id = ? and environment = ? and deleted_at is null`, [merchantId, environment]))[0].n);

describe('endpoints per merchant and environment are capped (WEBHOOK_MAX_ENDPOINTS)', () => {
  test('the fourth of three is 422 endpoint_limit_reached and writes nothing; deleting one makes room; live has its own cap', async () => {
    const m = await h.merchant({ verified: true });
    const create = (env: 'sandbox' | 'live' = 'sandbox') =>
      h.request(env, 'POST', '/v1/webhook-endpoints', { key: env === 'sandbox' ? m.testKey : m.liveKey, body: { url: 'https://hooks.example.com/hook' } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await create();
      expect(res.status).toBe(201);
      ids.push(res.json.id);
    }
    const refused = await create();
    expectError(refused, 422, 'endpoint_limit_reached');
    expect(refused.json.error.type).toBe('invalid_request_error');
    expect(refused.json.error.message).toMatch(/maximum of 3 webhook endpoints in sandbox/);
    expect(await liveEndpoints(m.id)).toBe(3);

    // A disabled endpoint still counts; a deleted one does not.
    expect((await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ids[0]}`, { key: m.testKey, body: { status: 'disabled' } })).status).toBe(200);
    expectError(await create(), 422, 'endpoint_limit_reached');
    expect((await h.request('sandbox', 'DELETE', `/v1/webhook-endpoints/${ids[1]}`, { key: m.testKey })).status).toBe(200);
    expect((await create()).status).toBe(201);
    expectError(await create(), 422, 'endpoint_limit_reached');

    // The other environment is counted apart.
    expect((await create('live')).status).toBe(201);
    expect(await liveEndpoints(m.id, 'live')).toBe(1);
  });

  test('concurrent creates cannot exceed the cap', async () => {
    const { caller } = await sandboxCaller(h.orm);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => createEndpoint(h.deps, caller, { url: 'https://hooks.example.com/race' })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(rejected.map((o) => o.reason.code)).toEqual(Array(5).fill('endpoint_limit_reached'));
    expect(await liveEndpoints(caller.merchantId)).toBe(3);
  });
});

test('the relay claims in round robin over merchants: one merchant\'s flood does not hold back another\'s event', async () => {
  const flood = await sandboxCaller(h.orm);
  const quiet = await sandboxCaller(h.orm);
  await createEndpoint(h.deps, flood.caller, { url: `${rx.url}/flood` });
  await createEndpoint(h.deps, quiet.caller, { url: `${rx.url}/quiet` });
  // 150 events of one merchant, older than the other merchant's one event: more than a pass (100).
  const conn = h.orm.em.getConnection();
  for (let i = 0; i < 150; i++) await emitEvent(h.orm, flood.caller);
  const quietEvent = await emitEvent(h.orm, quiet.caller);
  // No worker polls this queue: the started workflows are never run.
  const deps = { orm: h.orm, client: h.temporal.client, taskQueue: `unpolled-${randomBase62(8)}`, retryScheduleMs: [1000], log: createLogger('silent') };
  const handled = await relayOnce(deps);
  expect(handled).toBe(100);
  const [row] = await conn.execute<{ dispatched_at: Date | null }[]>(`select dispatched_at from events where id = ?`, [quietEvent]);
  expect(row.dispatched_at).not.toBeNull();
  const [{ n }] = await conn.execute<{ n: string }[]>(`select count(*) as n from events where merchant_id = ? and dispatched_at is null`, [flood.caller.merchantId]);
  // The flood took the rest of the pass, oldest first.
  expect(Number(n)).toBeGreaterThanOrEqual(51);
  while ((await relayOnce(deps)) > 0);
  // Oldest first within a merchant: the flood's events were claimed in creation order.
  const order = await conn.execute<{ ok: boolean }[]>(
    `select bool_and(prev_dispatched <= dispatched_at) as ok from (
       select dispatched_at, lag(dispatched_at) over (order by created_at, id) as prev_dispatched from events where merchant_id = ?) t`,
    [flood.caller.merchantId],
  );
  expect(order[0].ok).toBe(true);
}, 120_000);

test('one merchant whose endpoint hangs cannot take every activity slot: another merchant is delivered meanwhile', async () => {
  await h.startWorker();
  const slow = await sandboxCaller(h.orm);
  const fast = await sandboxCaller(h.orm);
  let releaseSlow!: () => void;
  const slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
  rx.respond((d) => (d.path.endsWith('/slow') ? { status: 200, body: 'late', release: slowReleased } : { status: 200, body: 'ok' }));
  try {
    await createEndpoint(h.deps, slow.caller, { url: `${rx.url}/slow`, timeout_seconds: 30 });
    await createEndpoint(h.deps, fast.caller, { url: `${rx.url}/fast` });
    // More hanging deliveries than the worker has sandbox activity slots.
    for (let i = 0; i < 6; i++) await emitEvent(h.orm, slow.caller);
    await rx.waitFor((ds) => ds.some((d) => d.path.endsWith('/slow')), 30_000);
    const sentAt = Date.now();
    await emitEvent(h.orm, fast.caller);
    const delivered = await rx.waitFor((ds) => ds.some((d) => d.path.endsWith('/fast')), 20_000);
    const fastArrival = delivered.find((d) => d.path.endsWith('/fast'))!.receivedAt;
    // Sent within seconds although every hanging send would last 30 s.
    expect(fastArrival - sentAt).toBeLessThan(10_000);
    // One send at a time to the slow merchant (WEBHOOK_MERCHANT_CONCURRENCY=1).
    expect(rx.deliveries.filter((d) => d.path.endsWith('/slow'))).toHaveLength(1);
  } finally {
    releaseSlow();
  }
  // Once released, the slow merchant's deliveries all go through, one at a time.
  await until('all slow deliveries', async () => {
    const [{ n }] = await sql<{ n: string }>(`select count(*) as n from webhook_deliveries where merchant_id = ? and status = 'succeeded'`, [slow.caller.merchantId]);
    return Number(n) === 6;
  }, 90_000);
}, 180_000);
