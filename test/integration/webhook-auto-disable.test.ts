/**
 * Endpoint health over days of retries (INTERFACE "Webhooks"): the real delivery workflow and
 * activities, real PostgreSQL and a real local receiver, on the time-skipping server so the
 * production schedule (5s … 10h) and the five-day rule run in seconds. The attempt times recorded
 * are workflow time. Time moves only through env.sleep: awaiting a result lets the test server skip
 * ahead to its next timer (years, when nothing else is scheduled).
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { appendEvent } from '../../src/persistence/events/event-log';
import { createMerchant } from '../../src/persistence/merchants/merchant-store';
import { openOrm, type Orm } from '../../src/persistence/orm';
import { updateEndpoint } from '../../src/persistence/webhooks/webhook-endpoint-store';
import type { Caller, ServiceDeps } from '../../src/services/context';
import { replayDelivery } from '../../src/services/replay-delivery';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import { createLogger } from '../../src/support/logger';
import { newId, randomBase62 } from '../../src/support/new-id';
import { createSecretBox, parseSecretsKey } from '../../src/support/secret-box';
import { relayOnce } from '../../src/webhooks/outbox-relay';
import { policyAgents } from '../../src/webhooks/policy-agents';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import { testServerPath } from '../support/binaries';
import { testWebhookConfig } from '../support/harness';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';
import { declareSearchAttributes } from '../workflows/support/charge-env';
import { webhookTaskQueueFor } from '../../src/temporal/task-queues';
import { testActor } from '../support/test-actor';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const log = createLogger('silent');
let env: TestWorkflowEnvironment;
let orm: Orm;
let rx: TestReceiver;
let worker: Worker;
let running: Promise<void>;
let deps: ServiceDeps;
const taskQueue = `health-${randomBase62(8)}`;
const webhooks = testWebhookConfig();

beforeAll(async () => {
  installRuntime('ERROR');
  orm = await openOrm(process.env.TEST_DATABASE_URL!, 4);
  rx = await startTestReceiver();
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
  await declareSearchAttributes(env);
  const secretBox = createSecretBox(parseSecretsKey(process.env.TEST_SECRETS_KEY!));
  deps = { orm, temporal: { connection: env.connection, client: env.client, namespace: 'default' }, taskQueue, log, secretBox, webhooks };
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: webhookTaskQueueFor(taskQueue, 'sandbox'),
    workflowBundle: await workflowBundle(),
    activities: createActivities({ orm, webhooks: { secretBox, agents: policyAgents(webhooks), disableRule: webhooks.disableRule } }),
  });
  running = worker.run();
});
afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  await rx?.close();
  await orm?.close();
});

/** A state change's event, written the way the charge store writes it, at workflow time. */
async function emit(caller: Caller, n: number): Promise<string> {
  const at = new Date(await env.currentTimeMs()).toISOString();
  const appended = await orm.em.fork().transactional((em) =>
    appendEvent(
      em,
      { merchantId: caller.merchantId, environment: caller.environment, type: 'transaction.succeeded', resourceType: 'transaction', resourceId: `txn_health${n}`, createdAt: at, dataJson: `{"n":${n}}` },
      `health-${caller.merchantId}-${n}`,
    ),
  );
  return appended.id;
}

/** Fans the event out like the worker's relay and returns its delivery id to the endpoint. */
async function deliveryOf(eventId: string, endpointId: string): Promise<string> {
  await relayOnce({ orm, client: env.client, taskQueue, retryScheduleMs: webhooks.retryScheduleMs, log });
  const rows = await orm.em.getConnection().execute<{ id: string }[]>(
    `select id from webhook_deliveries where event_id = ? and endpoint_id = ? and replay_of is null`,
    [eventId, endpointId],
  );
  expect(rows).toHaveLength(1);
  return rows[0].id;
}

const delivery = async (id: string) =>
  (await orm.em.getConnection().execute<Record<string, unknown>[]>(`select status, attempt_count, last_status_code, last_error from webhook_deliveries where id = ?`, [id]))[0];
const attemptTimes = async (id: string) =>
  (await orm.em.getConnection().execute<{ attempted_at: string }[]>(`select attempted_at from webhook_attempts where delivery_id = ? order by attempt`, [id])).map((r) =>
    new Date(r.attempted_at).getTime(),
  );
const health = async (id: string) =>
  (await orm.em.getConnection().execute<Record<string, any>[]>(`select status, consecutive_failures, auto_disabled_at from webhook_endpoints where id = ?`, [id]))[0];

test('ten failures alone do not disable; ten failures whose first is five days old do; PATCH active re-enables and clears the streak', async () => {
  const m = await createMerchant(orm, 'Health check merchant');
  const caller: Caller = { merchantId: m.id, environment: 'sandbox', keyId: m.testKey.id, merchantVerified: false };
  const { endpoint } = await createEndpoint(deps, caller, { url: `${rx.url}/health`, subscribed_events: [] });
  rx.respond((d) => (d.body.includes('"n":') ? { status: 500, body: 'down' } : { status: 200 }));

  // Event 1: the whole schedule, 8 attempts over about 27.6 hours (±20 %), all failing.
  const first = await deliveryOf(await emit(caller, 1), endpoint.id);
  await env.sleep(36 * HOUR);
  expect(await delivery(first)).toMatchObject({ status: 'failed', attempt_count: 8, last_status_code: 500 });
  const times = await attemptTimes(first);
  expect(times).toHaveLength(8);
  expect(times[7] - times[0]).toBeGreaterThan(0.8 * 27.6 * HOUR);
  expect(times[7] - times[0]).toBeLessThan(1.2 * 27.6 * HOUR);
  expect(await health(endpoint.id)).toMatchObject({ status: 'active', consecutive_failures: 8 });

  // Event 2, at once: 16 consecutive failures, but the first is barely two days old: still active.
  const second = await deliveryOf(await emit(caller, 2), endpoint.id);
  await env.sleep(36 * HOUR);
  expect(await delivery(second)).toMatchObject({ status: 'failed', attempt_count: 8 });
  expect(await health(endpoint.id)).toMatchObject({ status: 'active', consecutive_failures: 16, auto_disabled_at: null });

  // Days later the streak's first failure is over five days old: the next failure disables the
  // endpoint, and the retry that follows sends nothing.
  await env.sleep(2.5 * DAY);
  const received = rx.deliveries.length;
  const third = await deliveryOf(await emit(caller, 3), endpoint.id);
  await env.sleep(HOUR);
  expect(await delivery(third)).toMatchObject({ status: 'skipped', attempt_count: 1, last_error: 'endpoint disabled' });
  expect(await env.client.workflow.getHandle(third).result()).toMatchObject({ status: 'skipped', attempts: 2 });
  expect(rx.deliveries.length).toBe(received + 1);
  const disabled = await health(endpoint.id);
  expect(disabled).toMatchObject({ status: 'disabled', consecutive_failures: 17 });
  expect(new Date(disabled.auto_disabled_at).getTime() - times[0]).toBeGreaterThanOrEqual(5 * DAY);

  // While disabled, a new event is recorded as skipped and nothing is attempted or started.
  const missedEvent = await emit(caller, 4);
  const missed = await deliveryOf(missedEvent, endpoint.id);
  expect(await delivery(missed)).toMatchObject({ status: 'skipped', attempt_count: 0 });
  await expect(env.client.workflow.getHandle(missed).describe()).rejects.toThrow();
  expect(rx.deliveries.length).toBe(received + 1);

  // PATCH status active (as the API does) re-enables and clears the streak; the missed event is replayed.
  const enabled = await updateEndpoint(orm, caller, endpoint.id, { status: 'active' }, testActor());
  expect(enabled).toMatchObject({ status: 'active', consecutiveFailures: 0, autoDisabledAt: null });
  rx.respond(() => ({ status: 200 }));
  const replay = await replayDelivery(deps, caller, missed);
  expect(await env.client.workflow.getHandle(replay.id).result()).toEqual({ status: 'succeeded', attempts: 1, reason: null });
  const last = rx.deliveries.at(-1)!;
  expect(last.headers['x-service-event-id']).toBe(missedEvent);
  expect(last.headers['x-service-delivery-id']).toBe(replay.id);
  expect(await health(endpoint.id)).toMatchObject({ status: 'active', consecutive_failures: 0 });
}, 180_000);

test('an unknown delivery id fails the workflow without retries', async () => {
  const handle = await env.client.workflow.start('webhookDeliveryWorkflow', {
    taskQueue: webhookTaskQueueFor(taskQueue, 'sandbox'),
    workflowId: newId('delivery'),
    args: [{ deliveryId: 'dlv_missing', eventId: 'evt_x', eventType: 'transaction.created', endpointId: 'we_x', merchantId: 'mer_x', environment: 'sandbox', retryScheduleMs: [1000] }],
  });
  await expect(handle.result()).rejects.toThrow();
});
