/**
 * The outbox relay and the replay start under failure (real PostgreSQL, real Temporal dev server, a
 * real local receiver). The payments worker runs without its relay: each test runs relay passes
 * itself, with a Temporal client that is down, hangs, or works.
 *  - Temporal down: a pass fails, logs, leaves its events undispatched; once Temporal is back the next
 *    pass dispatches them, every delivery started and sent exactly once.
 *  - A relay that claimed events and died: another relay takes them over when the lease ends.
 *  - A replay whose workflow start failed (or failed after it happened): the delivery stays pending,
 *    a retry with the same Idempotency-Key answers it and it is sent exactly once; without a retry the
 *    relay's sweep starts it.
 */
import type { Client } from '@temporalio/client';
import pino from 'pino';
import { TEXT_ARRAY } from '../../src/persistence/sql-values';
import { fanOutDeliveryId } from '../../src/webhooks/delivery-id';
import type { Caller, ServiceDeps } from '../../src/services/context';
import { replayDeliveryOnce } from '../../src/services/replay-delivery';
import { apiActor, createEndpoint } from '../../src/services/webhook-endpoints';
import { recoverEndpoint } from '../../src/services/recover-endpoint';
import { fifoWorkflowId } from '../../src/domain/webhook-fifo';
import { createLogger } from '../../src/support/logger';
import { relayOnce, startOutboxRelay, startUnstartedDeliveries, type RelayDeps } from '../../src/webhooks/outbox-relay';
import { idempotencyKey, startHarness, type Harness } from '../support/harness';
import { deadTemporalClient, emitEvent, sandboxCaller, startBareWorker, until } from '../support/webhook-fixtures';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

let h: Harness;
let rx: TestReceiver;
let worker: { stop(): Promise<void> };
let dead: { client: Client; close(): Promise<void> };
beforeAll(async () => {
  h = await startHarness({ worker: false });
  rx = await startTestReceiver();
  worker = await startBareWorker(h);
  dead = await deadTemporalClient();
});
afterAll(async () => {
  await worker?.stop();
  await dead?.close();
  await rx?.close();
  await h?.close();
});

const silent = createLogger('silent');
const relayDeps = (client: Client, extra: Partial<RelayDeps> = {}): RelayDeps => ({
  orm: h.orm,
  client,
  taskQueue: h.taskQueue,
  retryScheduleMs: h.deps.webhooks.retryScheduleMs,
  log: silent,
  ...extra,
});
const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const ofDelivery = (id: string) => (ds: ReceivedDelivery[]) => ds.filter((d) => d.headers['x-service-delivery-id'] === id);

async function endpoints(caller: Caller, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await createEndpoint(h.deps, caller, { url: `${rx.url}/${caller.merchantId}/${i}`, subscribed_events: [] })).endpoint.id);
  return ids;
}

/** Does a workflow exist under this id? */
async function workflowExists(id: string): Promise<boolean> {
  try {
    await h.temporal.client.workflow.getHandle(id).describe();
    return true;
  } catch {
    return false;
  }
}

/** Waits for the delivery's workflow to finish, then checks it was sent exactly once and succeeded. */
async function sentExactlyOnce(deliveryId: string): Promise<void> {
  await until(`workflow ${deliveryId}`, () => workflowExists(deliveryId));
  expect(await h.temporal.client.workflow.getHandle(deliveryId).result()).toEqual({ status: 'succeeded', attempts: 1, reason: null });
  expect(ofDelivery(deliveryId)(rx.deliveries)).toHaveLength(1);
  const [row] = await sql(`select status, attempt_count, workflow_started_at from webhook_deliveries where id = ?`, [deliveryId]);
  expect(row).toMatchObject({ status: 'succeeded', attempt_count: 1 });
}

test('Temporal down: the pass fails and logs, the events stay undispatched; once it is back every delivery is started and sent exactly once', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const eps = await endpoints(caller, 2);
  const events = [await emitEvent(h.orm, caller), await emitEvent(h.orm, caller), await emitEvent(h.orm, caller)];
  const deliveryIds = events.flatMap((e) => eps.map((ep) => fanOutDeliveryId(e, ep)));

  // One running relay; its Temporal is down first, then back.
  let temporalUp = false;
  const switchable = { withDeadline: <T>(deadline: number, fn: () => Promise<T>) => (temporalUp ? h.temporal.client : dead.client).withDeadline(deadline, fn), workflow: { start: (...args: Parameters<Client['workflow']['start']>) => (temporalUp ? h.temporal.client : dead.client).workflow.start(...args) } } as unknown as Client;
  const logged: Array<{ level: number; msg: string }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line)) });
  const relay = startOutboxRelay(relayDeps(switchable, { log }), 50);
  try {
    await until('a logged relay failure', async () => logged.some((l) => l.level >= 50 && /relay pass failed/.test(l.msg)));
    const undispatched = await sql(`select id from events where id = any(${TEXT_ARRAY}) and dispatched_at is null`, [JSON.stringify(events)]);
    expect(undispatched).toHaveLength(3);
    for (const id of deliveryIds) expect(await workflowExists(id)).toBe(false);
    expect(rx.deliveries.filter((d) => d.path.includes(caller.merchantId))).toHaveLength(0);

    temporalUp = true;
    await until('all three events dispatched', async () => (await sql(`select id from events where id = any(${TEXT_ARRAY}) and dispatched_at is not null`, [JSON.stringify(events)])).length === 3);
  } finally {
    await relay.stop();
  }
  for (const id of deliveryIds) await sentExactlyOnce(id);
  const mine = rx.deliveries.filter((d) => d.path.includes(caller.merchantId));
  expect(mine).toHaveLength(6);
  expect(new Set(mine.map((d) => d.headers['x-service-delivery-id']))).toEqual(new Set(deliveryIds));
  const rows = await sql(`select id, workflow_started_at from webhook_deliveries where event_id = any(${TEXT_ARRAY})`, [JSON.stringify(events)]);
  expect(rows).toHaveLength(6);
  for (const r of rows) expect(r.workflow_started_at).not.toBeNull();
}, 120_000);

test('a relay that claimed events and died: another relay takes them over once the lease ends, and sends each once', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const [ep] = await endpoints(caller, 1);
  const eventId = await emitEvent(h.orm, caller);
  const deliveryId = fanOutDeliveryId(eventId, ep);

  // The "crashed" relay: it claims the event, writes the delivery, and never gets further.
  const hung = { withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(), workflow: { start: () => new Promise(() => {}) } } as unknown as Client;
  void relayOnce(relayDeps(hung, { leaseSeconds: 3600 }));
  await until('the claim', async () => (await sql(`select 1 from webhook_deliveries where id = ?`, [deliveryId])).length === 1);

  // While the lease lasts, a working relay leaves the event alone.
  await relayOnce(relayDeps(h.temporal.client));
  const [leased] = await sql(`select dispatched_at, dispatch_lease_until > now() as live from events where id = ?`, [eventId]);
  expect(leased).toMatchObject({ dispatched_at: null, live: true });
  expect(await workflowExists(deliveryId)).toBe(false);

  // The hour passes (the database clock cannot be moved, so the lease is moved back instead).
  await sql(`update events set dispatch_lease_until = now() - interval '1 second' where id = ?`, [eventId]);
  await until('the lease to end', async () => (await sql(`select dispatch_lease_until < now() as over from events where id = ?`, [eventId]))[0].over === true);
  expect(await relayOnce(relayDeps(h.temporal.client))).toBeGreaterThanOrEqual(1);
  const [after] = await sql(`select dispatched_at, dispatch_lease_until from events where id = ?`, [eventId]);
  expect(after.dispatched_at).not.toBeNull();
  await sentExactlyOnce(deliveryId);
}, 60_000);

/** A delivered fan-out delivery to replay. */
async function deliveredOriginal(): Promise<{ caller: Caller; key: string; original: string }> {
  const { caller, key } = await sandboxCaller(h.orm);
  const [ep] = await endpoints(caller, 1);
  const eventId = await emitEvent(h.orm, caller);
  await relayOnce(relayDeps(h.temporal.client));
  const original = fanOutDeliveryId(eventId, ep);
  await sentExactlyOnce(original);
  return { caller, key, original };
}

const withClient = (client: Client): ServiceDeps => ({ ...h.deps, temporal: { ...h.deps.temporal, client } });

test('a replay whose start failed (Temporal unreachable): the retry with the same Idempotency-Key answers a delivery that is sent, once', async () => {
  const { caller, key, original } = await deliveredOriginal();
  const idem = idempotencyKey();
  await expect(replayDeliveryOnce(withClient(dead.client), caller, original, idem)).rejects.toThrow();
  const [pending] = await sql(`select id, status, workflow_started_at from webhook_deliveries where replay_of = ?`, [original]);
  expect(pending).toMatchObject({ status: 'pending', workflow_started_at: null });

  const retry = await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${original}/replay`, { key, headers: { 'Idempotency-Key': idem } });
  expect(retry.status).toBe(202);
  expect(retry.json.id).toBe(pending.id);
  await sentExactlyOnce(retry.json.id);
  expect((await sql(`select id from webhook_deliveries where replay_of = ?`, [original])).length).toBe(1);
}, 60_000);

test('a replay whose start happened but answered an error: the retry with the same key answers it, and it is sent once', async () => {
  const { caller, key, original } = await deliveredOriginal();
  const idem = idempotencyKey();
  // The start reaches Temporal, then the answer is lost (a deadline exceeded on the way back).
  const lostAnswer = {
    withDeadline: <T>(deadline: number, fn: () => Promise<T>) => h.temporal.client.withDeadline(deadline, fn),
    workflow: {
      start: async (...args: Parameters<Client['workflow']['start']>) => {
        await h.temporal.client.workflow.start(...args);
        throw new Error('simulated: deadline exceeded after the start was accepted');
      },
    },
  } as unknown as Client;
  await expect(replayDeliveryOnce(withClient(lostAnswer), caller, original, idem)).rejects.toThrow(/deadline exceeded/);
  const retry = await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${original}/replay`, { key, headers: { 'Idempotency-Key': idem } });
  expect(retry.status).toBe(202);
  await sentExactlyOnce(retry.json.id);
  const again = await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${original}/replay`, { key, headers: { 'Idempotency-Key': idem } });
  expect(again.json.id).toBe(retry.json.id);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
}, 60_000);

test('a replay whose start failed and is never retried: the relay sweep starts it, once', async () => {
  const { caller, original } = await deliveredOriginal();
  await expect(replayDeliveryOnce(withClient(dead.client), caller, original, idempotencyKey())).rejects.toThrow();
  const [pending] = await sql(`select id, status from webhook_deliveries where replay_of = ?`, [original]);
  expect(pending.status).toBe('pending');

  // Younger than the threshold: left alone (its creator may still be starting it).
  await startUnstartedDeliveries(relayDeps(h.temporal.client, { unstartedAfterSeconds: 3600 }));
  expect(await workflowExists(pending.id)).toBe(false);

  expect(await startUnstartedDeliveries(relayDeps(h.temporal.client, { unstartedAfterSeconds: 0 }))).toBeGreaterThanOrEqual(1);
  await sentExactlyOnce(pending.id);
  const [row] = await sql(`select workflow_started_at from webhook_deliveries where id = ?`, [pending.id]);
  expect(row.workflow_started_at).not.toBeNull();
  // Swept once: a later sweep does not look at it again.
  const later = await sql(`select id from webhook_deliveries where status = 'pending' and attempt_count = 0 and workflow_started_at is null and id = ?`, [pending.id]);
  expect(later).toHaveLength(0);
}, 60_000);

test('a recovery whose workflow start failed (Temporal unreachable): the sweep leaves it while young, then starts it once and marks it started (issue 49)', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const [ep] = await endpoints(caller, 1);
  await emitEvent(h.orm, caller);
  const since = new Date(Date.now() - 60_000).toISOString();
  await expect(recoverEndpoint(withClient(dead.client), caller, ep!, since, apiActor(caller))).rejects.toThrow();
  const [recovery] = await sql(`select id, workflow_started_at from webhook_recoveries where endpoint_id = ?`, [ep]);
  expect(recovery).toMatchObject({ workflow_started_at: null });
  expect(await workflowExists(recovery.id)).toBe(false);

  await startUnstartedDeliveries(relayDeps(h.temporal.client, { unstartedAfterSeconds: 3600 }));
  expect(await workflowExists(recovery.id)).toBe(false);

  expect(await startUnstartedDeliveries(relayDeps(h.temporal.client, { unstartedAfterSeconds: 0 }))).toBeGreaterThanOrEqual(1);
  expect(await workflowExists(recovery.id)).toBe(true);
  const [row] = await sql(`select workflow_started_at from webhook_recoveries where id = ?`, [recovery.id]);
  expect(row.workflow_started_at).not.toBeNull();
  expect((await h.temporal.client.workflow.getHandle(recovery.id).describe()).type).toBe('webhookRecoveryWorkflow');
}, 60_000);

test('a FIFO queue whose wake-up was lost: the sweep wakes (starts) the endpoint\'s workflow once its head has waited long enough, and the queue is sent in order (issue 49)', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const ep = (await createEndpoint(h.deps, caller, { url: `${rx.url}/${caller.merchantId}/fifo`, subscribed_events: [], delivery_order: 'fifo' })).endpoint.id;
  const events = [await emitEvent(h.orm, caller), await emitEvent(h.orm, caller)];
  // The relay's pass whose signal-with-start never happened: the deliveries are written, no workflow was told.
  await expect(relayOnce(relayDeps(dead.client))).rejects.toThrow();
  const waiting = await sql(`select id, fifo_sequence from webhook_deliveries where endpoint_id = ? order by fifo_sequence`, [ep]);
  expect(waiting).toHaveLength(2);
  expect(await workflowExists(fifoWorkflowId(ep))).toBe(false);

  // Not yet unattended long enough: left alone.
  await startUnstartedDeliveries(relayDeps(h.temporal.client, { unstartedAfterSeconds: 3600 }));
  expect(await workflowExists(fifoWorkflowId(ep))).toBe(false);
  // Unattended: the head was never attempted FIFO_UNATTENDED_AFTER_SECONDS after it was written.
  await sql(`update webhook_deliveries set updated_at = now() - interval '1 hour' where endpoint_id = ?`, [ep]);
  await startUnstartedDeliveries(relayDeps(h.temporal.client, { unstartedAfterSeconds: 3600 }));
  expect(await workflowExists(fifoWorkflowId(ep))).toBe(true);
  const got = await rx.waitFor((ds) => ds.filter((d) => d.path.endsWith(`${caller.merchantId}/fifo`)).length >= 2, 20_000);
  expect(got.filter((d) => d.path.endsWith(`${caller.merchantId}/fifo`)).map((d) => d.headers['x-service-event-id'])).toEqual(events);
}, 60_000);
