/**
 * The outbox relay under faults (issue 32, "Webhook delivery under faults"; real PostgreSQL, real
 * Temporal dev server, a real local receiver; the payments worker runs without its relay):
 *  - a live-only worker's relay (WORKER_ENVIRONMENTS=live) claims live events only;
 *  - a workflow start that Temporal never answers fails within the relay's deadline
 *    (TEMPORAL_REQUEST_DEADLINE_MS), like the four other start relays;
 *  - while a pass hangs, the fallback poll still begins passes.
 */
import { Client, Connection } from '@temporalio/client';
import { TEXT_ARRAY } from '../../src/persistence/sql-values';
import type { Caller } from '../../src/services/context';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import { createLogger } from '../../src/support/logger';
import { fanOutDeliveryId } from '../../src/webhooks/delivery-id';
import { relayOnce, startOutboxRelay, type RelayDeps } from '../../src/webhooks/outbox-relay';
import { startHarness, type Harness } from '../support/harness';
import { startPausableProxy, type PausableProxy } from '../support/pausable-proxy';
import { emitEvent, sandboxCaller, startBareWorker, until } from '../support/webhook-fixtures';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';

let h: Harness;
let rx: TestReceiver;
let worker: { stop(): Promise<void> };
let proxy: PausableProxy;
let proxied: { client: Client; connection: Connection };
beforeAll(async () => {
  h = await startHarness({ worker: false });
  rx = await startTestReceiver();
  worker = await startBareWorker(h);
  proxy = await startPausableProxy(process.env.TEST_TEMPORAL_ADDRESS!);
  const connection = await Connection.connect({ address: proxy.address });
  proxied = { connection, client: new Client({ connection, namespace: 'default' }) };
});
afterAll(async () => {
  proxy?.resume();
  await proxied?.connection.close();
  await proxy?.close();
  await worker?.stop();
  await rx?.close();
  await h?.close();
});

const silent = createLogger(process.env.RELAY_TEST_LOG ?? 'silent');
const relayDeps = (client: Client, extra: Partial<RelayDeps> = {}): RelayDeps => ({
  orm: h.orm,
  client,
  taskQueue: h.taskQueue,
  retryScheduleMs: h.deps.webhooks.retryScheduleMs,
  log: silent,
  ...extra,
});
const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const dispatched = async (id: string) => (await sql(`select dispatched_at from events where id = ?`, [id]))[0].dispatched_at !== null;

test('a live-only relay (WORKER_ENVIRONMENTS=live) claims the live event and leaves the sandbox one alone', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const live: Caller = { ...caller, environment: 'live' };
  const sandboxEvent = await emitEvent(h.orm, caller);
  const liveEvent = await emitEvent(h.orm, live);
  await relayOnce(relayDeps(h.temporal.client, { environments: ['live'] }));
  expect(await dispatched(liveEvent)).toBe(true);
  // Before the fix the live-only relay dispatched it too.
  const [row] = await sql(`select dispatched_at, dispatch_lease_until from events where id = ?`, [sandboxEvent]);
  expect(row).toEqual({ dispatched_at: null, dispatch_lease_until: null });
  await relayOnce(relayDeps(h.temporal.client, { environments: ['sandbox'] }));
  expect(await dispatched(sandboxEvent)).toBe(true);
}, 60_000);

test('a start Temporal never answers fails the pass within the deadline; the events stay undispatched, then go once Temporal answers', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const { endpoint } = await createEndpoint(h.deps, caller, { url: `${rx.url}/${caller.merchantId}/deadline`, subscribed_events: [] });
  await proxied.client.workflowService.getSystemInfo({}); // the connection is open before the pause
  proxy.pause();
  const eventId = await emitEvent(h.orm, caller);
  const began = Date.now();
  try {
    // Before the fix the start waited for ever, and so did the pass.
    const outcome = await Promise.race([
      relayOnce(relayDeps(proxied.client, { requestDeadlineMs: 1_500 })).then(() => 'passed', (error: unknown) => `failed: ${String(error)} (${String((error as Error).cause)})`),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 15 s'), 15_000)),
    ]);
    expect(outcome).toMatch(/^failed: .*(deadline|DEADLINE)/i);
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(await dispatched(eventId)).toBe(false);
  } finally {
    proxy.resume();
  }
  await relayOnce(relayDeps(h.temporal.client));
  expect(await dispatched(eventId)).toBe(true);
  const deliveryId = fanOutDeliveryId(eventId, endpoint.id);
  await until('the delivery sent', async () => rx.deliveries.some((d) => d.headers['x-service-delivery-id'] === deliveryId));
}, 60_000);

test('while a pass hangs on a start, the fallback poll still begins passes: an event written meanwhile is dispatched', async () => {
  const { caller } = await sandboxCaller(h.orm);
  await createEndpoint(h.deps, caller, { url: `${rx.url}/${caller.merchantId}/hang`, subscribed_events: [] });
  // A merchant with no endpoint: its events need no start, only a pass.
  const { caller: quiet } = await sandboxCaller(h.orm);
  await proxied.client.workflowService.getSystemInfo({});
  proxy.pause();
  // No LISTEN: the poll (every 200 ms) is the only way a pass begins.
  const relay = startOutboxRelay(relayDeps(proxied.client, { listenUrl: null, requestDeadlineMs: 120_000 }), 200);
  try {
    const hanging = await emitEvent(h.orm, caller);
    await until('the pass that hangs claims its event', async () => (await sql(`select dispatch_lease_until from events where id = ?`, [hanging]))[0].dispatch_lease_until !== null);
    const later = await emitEvent(h.orm, quiet);
    // Before the fix no poll came after a pass that did not end.
    await until('the event written while a pass hangs dispatched by a later pass', () => dispatched(later), 10_000);
    expect(await dispatched(hanging)).toBe(false);
  } finally {
    proxy.resume();
    await relay.stop();
  }
}, 60_000);

test('claimed events are only the relay environments, whatever their order (text[] of environments)', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const ids = [await emitEvent(h.orm, caller), await emitEvent(h.orm, { ...caller, environment: 'live' })];
  await relayOnce(relayDeps(h.temporal.client, { environments: ['live', 'sandbox'] }));
  expect((await sql(`select id from events where id = any(${TEXT_ARRAY}) and dispatched_at is not null`, [JSON.stringify(ids)])).length).toBe(2);
}, 30_000);
