/**
 * Deliveries that never end (issue 32; real PostgreSQL, real Temporal dev server and worker, a real
 * local receiver; the worker runs without its relay, each test runs relay steps itself):
 *  - a delivery whose endpoint secret does not open with SECRETS_KEY ends, recorded failed with
 *    nothing sent (before: its attempt failed and was retried for ever, unrecorded);
 *  - a delivery whose workflow was terminated while it waited for a retry is started again from its
 *    next attempt and reaches the endpoint (before: its row stayed `pending` for good);
 *  - one whose runs keep closing that way is recorded failed past the bound, for an operator.
 */
import { UNSIGNED_REASON } from '../../activities/webhooks';
import type { Caller } from '../../src/services/context';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import { createLogger } from '../../src/support/logger';
import { GAVE_UP_REASON, MAX_REDISPATCHES, redispatchClosedDeliveries } from '../../src/webhooks/closed-deliveries';
import { fanOutDeliveryId } from '../../src/webhooks/delivery-id';
import { relayOnce, type RelayDeps } from '../../src/webhooks/outbox-relay';
import { startHarness, type Harness } from '../support/harness';
import { emitEvent, sandboxCaller, startBareWorker, until } from '../support/webhook-fixtures';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';

let h: Harness;
let rx: TestReceiver;
let worker: { stop(): Promise<void> };
beforeAll(async () => {
  h = await startHarness({ worker: false });
  rx = await startTestReceiver();
  worker = await startBareWorker(h);
});
afterAll(async () => {
  await worker?.stop();
  await rx?.close();
  await h?.close();
});
beforeEach(() => rx.respond(() => ({ status: 200, body: 'ok' })));

const deps = (): RelayDeps => ({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue, retryScheduleMs: [60 * 60_000], log: createLogger('silent') });
const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const sentTo = (path: string) => rx.deliveries.filter((d) => d.path === `/hook/${path}`);

/** An endpoint of the caller and an event fanned out to it; returns the delivery id (its workflow started). */
async function delivered(caller: Caller, path: string, before?: (endpointId: string) => Promise<void>): Promise<{ deliveryId: string; endpointId: string }> {
  const { endpoint } = await createEndpoint(h.deps, caller, { url: `${rx.url}/${path}`, subscribed_events: [] });
  await before?.(endpoint.id);
  const eventId = await emitEvent(h.orm, caller);
  await relayOnce(deps());
  return { deliveryId: fanOutDeliveryId(eventId, endpoint.id), endpointId: endpoint.id };
}

test('a secret that does not open: the delivery ends, recorded failed with nothing sent; the endpoint is not blamed', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const path = `${caller.merchantId}/unsigned`;
  const { deliveryId, endpointId } = await delivered(caller, path, async (id) => {
    // What a SECRETS_KEY changed without a reseal leaves: a box this key cannot open.
    const [{ secret_box: box }] = await sql(`select secret_box from webhook_endpoints where id = ?`, [id]);
    await sql(`update webhook_endpoints set secret_box = ? where id = ?`, [`${box.slice(0, -6)}AAAAAA`, id]);
  });
  // Before the fix the attempt threw and was retried for ever: the row stayed pending, no attempt recorded.
  const row = await until('the delivery ended', async () => {
    const [r] = await sql(`select status, attempt_count, last_error from webhook_deliveries where id = ?`, [deliveryId]);
    return r?.status !== 'pending' && r;
  }, 30_000);
  expect(row).toEqual({ status: 'failed', attempt_count: 1, last_error: UNSIGNED_REASON });
  expect(await h.temporal.client.workflow.getHandle(deliveryId).result()).toEqual({ status: 'failed', attempts: 1, reason: UNSIGNED_REASON });
  expect(await sql(`select attempt, outcome, status_code, error from webhook_attempts where delivery_id = ?`, [deliveryId])).toEqual([
    { attempt: 1, outcome: 'failed', status_code: null, error: UNSIGNED_REASON },
  ]);
  expect(sentTo(path)).toHaveLength(0);
  expect((await sql(`select consecutive_failures, status from webhook_endpoints where id = ?`, [endpointId]))[0]).toEqual({ consecutive_failures: 0, status: 'active' });
}, 60_000);

test('a delivery whose workflow was terminated while it waited for its retry: started again from its next attempt, it reaches the endpoint', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const path = `${caller.merchantId}/terminated`;
  rx.respond((d) => (d.path === `/hook/${path}` && sentTo(path).length <= 1 ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
  const { deliveryId } = await delivered(caller, path);
  await until('attempt 1 recorded, the retry an hour away', async () => (await sql(`select attempt_count from webhook_deliveries where id = ?`, [deliveryId]))[0]?.attempt_count === 1);
  await h.temporal.client.workflow.getHandle(deliveryId).terminate('an operator, a bad deploy');
  expect((await sql(`select status from webhook_deliveries where id = ?`, [deliveryId]))[0].status).toBe('pending');

  // Before the fix nothing looked at it again: pending for good.
  const done = await until('the relay starting it again', async () => {
    const { restarted } = await redispatchClosedDeliveries(deps(), Date.now() - 60_000);
    return restarted.includes(deliveryId) && restarted;
  }, 30_000);
  expect(done).toContain(deliveryId);
  expect(await h.temporal.client.workflow.getHandle(deliveryId).result()).toEqual({ status: 'succeeded', attempts: 2, reason: null });
  expect(sentTo(path).map((d) => d.headers['x-service-attempt'])).toEqual(['1', '2']);
  expect((await sql(`select status, attempt_count, redispatches from webhook_deliveries where id = ?`, [deliveryId]))[0]).toEqual({ status: 'succeeded', attempt_count: 2, redispatches: 1 });
  // A later look leaves it alone: it ended.
  expect(await redispatchClosedDeliveries(deps(), Date.now() - 60_000)).toEqual({ restarted: [], failed: [] });
}, 90_000);

test(`a delivery whose runs keep closing without ending it: past ${MAX_REDISPATCHES} new runs it is recorded failed, for an operator`, async () => {
  const { caller } = await sandboxCaller(h.orm);
  const path = `${caller.merchantId}/again`;
  rx.respond((d) => (d.path === `/hook/${path}` ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
  const { deliveryId } = await delivered(caller, path);
  await until('attempt 1 recorded', async () => (await sql(`select attempt_count from webhook_deliveries where id = ?`, [deliveryId]))[0]?.attempt_count === 1);
  await sql(`update webhook_deliveries set redispatches = ? where id = ?`, [MAX_REDISPATCHES, deliveryId]);
  await h.temporal.client.workflow.getHandle(deliveryId).terminate('again');
  await until('the relay recording it failed', async () => (await redispatchClosedDeliveries(deps(), Date.now() - 60_000)).failed.includes(deliveryId), 30_000);
  expect((await sql(`select status, last_error, attempt_count from webhook_deliveries where id = ?`, [deliveryId]))[0]).toEqual({ status: 'failed', last_error: GAVE_UP_REASON, attempt_count: 1 });
  expect(sentTo(path)).toHaveLength(1);
}, 90_000);
