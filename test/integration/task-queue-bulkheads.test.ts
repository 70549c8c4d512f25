/**
 * Sandbox and live run apart (issue 9, item 3): every workflow starts on its environment's task queue
 * (`<base>-sandbox`, `<base>-live`), each polled by a Worker with slots of its own
 * (src/runtime/worker-capacity.ts). A sandbox flood that holds every sandbox slot does not delay a
 * live workflow; runs started on the single queue of earlier releases still finish; /health of each
 * listener reports its own environment's workers. Real PostgreSQL, Temporal dev server and receiver.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Environment } from '../../src/domain/environment';
import { createMerchant } from '../../src/persistence/merchants/merchant-store';
import { insertEndpoint } from '../../src/persistence/webhooks/webhook-endpoint-store';
import type { Caller } from '../../src/services/context';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import { createLogger } from '../../src/support/logger';
import { newId, randomBase62 } from '../../src/support/new-id';
import { taskQueueFor, webhookTaskQueueFor } from '../../src/temporal/task-queues';
import { relayOnce } from '../../src/webhooks/outbox-relay';
import { fanOutDeliveryId } from '../../src/webhooks/delivery-id';
import type { SlotSettings } from '../../src/runtime/worker-settings';
import type { WebhookDeliveryResult, webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import type { WorkerGroup } from '../../workers/worker-group';
import { chargeBody, idempotencyKey, startHarness, type Harness } from '../support/harness';
import { deadTemporalClient, emitEvent, startBareWorker } from '../support/webhook-fixtures';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';
import { testActor } from '../support/test-actor';

const log = createLogger('silent');
let h: Harness;
let rx: TestReceiver;
let running: { worker: WorkerGroup; stop(): Promise<void> } | undefined;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  rx = await startTestReceiver();
});
afterAll(async () => {
  await stopWorkers();
  await rx?.close();
  await h?.close();
});

/** The payments worker on the harness's base queue, as workers/main.ts builds it, with `slots`. */
async function startWorkers(slots: SlotSettings): Promise<WorkerGroup> {
  const started = await startBareWorker(h, { slots });
  running = started;
  return started.worker;
}

async function stopWorkers(): Promise<void> {
  if (!running) return;
  await running.stop();
  running = undefined;
}

async function callerIn(environment: Environment): Promise<Caller> {
  const m = await createMerchant(h.orm, `Bulkhead merchant ${randomBase62(6)}`);
  return { merchantId: m.id, environment, keyId: environment === 'live' ? m.liveKey.id : m.testKey.id, merchantVerified: true };
}

/** One relay pass as the worker runs it (fan-out, then a start on each delivery's environment queue). */
const relay = (retryScheduleMs: number[] = []) => relayOnce({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue, retryScheduleMs, log });

const result = (deliveryId: string) => h.temporal.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(deliveryId).result() as Promise<WebhookDeliveryResult>;

/** A sandbox delivery row written by a relay pass whose start failed (Temporal down): no workflow yet. */
async function unstartedDelivery() {
  const caller = await callerIn('sandbox');
  const endpoint = (await createEndpoint(h.deps, caller, { url: `${rx.url}/${caller.merchantId}`, subscribed_events: [] })).endpoint.id;
  const eventId = await emitEvent(h.orm, caller);
  const dead = await deadTemporalClient();
  try {
    await expect(relayOnce({ orm: h.orm, client: dead.client, taskQueue: h.taskQueue, retryScheduleMs: [], log })).rejects.toThrow();
  } finally {
    await dead.close();
  }
  return { caller, endpoint, eventId, deliveryId: fanOutDeliveryId(eventId, endpoint) };
}

async function healthOf(environment: Environment): Promise<{ status: number; body: unknown }> {
  let answer = await h.request(environment, 'GET', '/health');
  // A new Worker's first poll reaches the server shortly after it starts: ask again until it shows (bounded).
  for (let i = 0; i < 50 && answer.status !== 200; i++) {
    await delay(200);
    answer = await h.request(environment, 'GET', '/health');
  }
  return { status: answer.status, body: answer.json };
}

test('/health on each listener reports the workers of its own environment', async () => {
  // A worker process for sandbox only (WORKER_ENVIRONMENTS=sandbox), nothing on live's queue.
  const worker = await startWorkers({ environments: ['sandbox'], legacySlots: 0 });
  try {
    expect(worker.taskQueues).toEqual({ sandbox: taskQueueFor(h.taskQueue, 'sandbox'), 'sandbox-webhooks': webhookTaskQueueFor(h.taskQueue, 'sandbox') });
    expect(await healthOf('sandbox')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await h.request('live', 'GET', '/health').then((r) => ({ status: r.status, body: r.json }))).toEqual({
      status: 503,
      body: { status: 'unavailable', database: true, temporal: true, worker: false },
    });
  } finally {
    await stopWorkers();
  }
  // Both environments polled (the default worker process): the live listener is healthy too.
  await startWorkers({ legacySlots: 0 });
  try {
    expect(await healthOf('live')).toEqual({ status: 200, body: { status: 'ok' } });
  } finally {
    await stopWorkers();
  }
}, 60_000);

test('a workflow started on the legacy single queue before the upgrade still finishes', async () => {
  // The delivery row written by a relay pass whose start failed (Temporal down) ...
  const { caller, endpoint, eventId, deliveryId } = await unstartedDelivery();
  // ... then started as the previous release started every workflow: on the base queue itself.
  await h.temporal.client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
    workflowId: deliveryId,
    taskQueue: h.taskQueue,
    args: [{ deliveryId, eventId, eventType: 'transaction.succeeded', endpointId: endpoint, merchantId: caller.merchantId, environment: 'sandbox', retryScheduleMs: [] }],
  });
  expect((await h.temporal.client.workflow.getHandle(deliveryId).describe()).taskQueue).toBe(h.taskQueue);

  const worker = await startWorkers({ localActivitySlots: 5, activitySlots: 5 }); // default WORKER_LEGACY_SLOTS: 1
  try {
    expect(worker.taskQueues.legacy).toBe(h.taskQueue);
    expect(await result(deliveryId)).toEqual({ status: 'succeeded', attempts: 1, reason: null });
    expect(rx.deliveries.filter((d) => d.headers['x-service-delivery-id'] === deliveryId)).toHaveLength(1);
  } finally {
    await stopWorkers();
  }
}, 60_000);

test('a sandbox webhook flood holding every sandbox send slot delays neither a live delivery nor a sandbox charge (own queues)', async () => {
  const FLOOD = 20;
  const SANDBOX_SEND_SLOTS = 2;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  rx.respond(() => ({ status: 200, body: 'ok', release: held }));
  try {
    // The flood: FLOOD sandbox deliveries to a receiver that answers none of them until released
    // (timeout 30 s: every attempt is a regular activity, not a local one).
    const sandbox = await callerIn('sandbox');
    await createEndpoint(h.deps, sandbox, { url: `${rx.url}/flood`, subscribed_events: [], timeout_seconds: 30 });
    for (let i = 0; i < FLOOD; i++) await emitEvent(h.orm, sandbox);
    const before = rx.deliveries.length;
    expect(await relay()).toBeGreaterThanOrEqual(FLOOD);

    // 4 + 4 payment slots (live 2 + 2, sandbox 2 + 2, no legacy queue) and 2 send slots per delivery Worker.
    const worker = await startWorkers({ localActivitySlots: 4, activitySlots: 4, legacySlots: 0, webhookSendSlots: SANDBOX_SEND_SLOTS });
    expect(worker.taskQueues).toEqual({
      sandbox: taskQueueFor(h.taskQueue, 'sandbox'),
      live: taskQueueFor(h.taskQueue, 'live'),
      'sandbox-webhooks': webhookTaskQueueFor(h.taskQueue, 'sandbox'),
      'live-webhooks': webhookTaskQueueFor(h.taskQueue, 'live'),
    });
    await rx.waitFor((ds) => ds.length >= before + SANDBOX_SEND_SLOTS, 20_000);

    // A sandbox charge meanwhile: its workflow is on the sandbox payments queue, not behind the
    // flood's deliveries, so it reaches `succeeded` as usual (`settled` fires its sandbox timer).
    const merchant = await h.merchant();
    const created = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body: chargeBody(), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(created.status).toBe(200);
    const chargeStartedAt = Date.now();
    expect((await h.temporal.client.workflow.getHandle(created.json.id).describe()).taskQueue).toBe(taskQueueFor(h.taskQueue, 'sandbox'));
    expect((await h.settled(created.json.id)).status).toBe('succeeded');
    expect(Date.now() - chargeStartedAt).toBeLessThan(10_000);

    // A live delivery now: an endpoint written directly (a live endpoint must be public, and this
    // one is not), so its one attempt is refused by the live policy and, with no retry scheduled,
    // the workflow ends after that attempt. What matters is when: at once, flood or not.
    const live = await callerIn('live');
    const liveEndpoint = await insertEndpoint(h.orm, live, {
      id: newId('webhookEndpoint'),
      url: `${rx.url}/live`,
      description: null,
      subscribedEvents: [],
      timeoutSeconds: 5,
      sealedSecret: h.deps.secretBox.seal(`whsec_${randomBase62(32)}`),
    }, testActor());
    const liveDelivery = fanOutDeliveryId(await emitEvent(h.orm, live), liveEndpoint.id);
    const startedAt = Date.now();
    expect(await relay()).toBeGreaterThanOrEqual(1);
    expect((await h.temporal.client.workflow.getHandle(liveDelivery).describe()).taskQueue).toBe(webhookTaskQueueFor(h.taskQueue, 'live'));
    const outcome = await result(liveDelivery);
    const tookMs = Date.now() - startedAt;

    expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
    expect(tookMs).toBeLessThan(10_000);
    const [attempt] = await h.orm.em.getConnection().execute(`select count(*)::int as n from webhook_attempts where delivery_id = ?`, [liveDelivery]);
    expect(attempt.n).toBe(1);
    // The flood was still holding sandbox's send slots throughout: no sandbox send beyond them got through.
    expect(rx.deliveries.length - before).toBe(SANDBOX_SEND_SLOTS);
    expect(rx.deliveries.some((d) => d.path === '/live')).toBe(false);
  } finally {
    release();
    rx.respond(() => ({ status: 200, body: 'ok' }));
    await stopWorkers();
  }
}, 90_000);

test('a delivery started on its environment queue before issue 19 still finishes there', async () => {
  const { caller, endpoint, eventId, deliveryId } = await unstartedDelivery();
  // Started as the releases between the split and issue 19 started deliveries: on `<base>-sandbox`, without localFirstAttempt.
  await h.temporal.client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
    workflowId: deliveryId,
    taskQueue: taskQueueFor(h.taskQueue, 'sandbox'),
    args: [{ deliveryId, eventId, eventType: 'transaction.succeeded', endpointId: endpoint, merchantId: caller.merchantId, environment: 'sandbox', retryScheduleMs: [] }],
  });
  await startWorkers({ legacySlots: 0 });
  try {
    expect(await result(deliveryId)).toEqual({ status: 'succeeded', attempts: 1, reason: null });
    expect(rx.deliveries.filter((d) => d.headers['x-service-delivery-id'] === deliveryId)).toHaveLength(1);
    expect((await h.temporal.client.workflow.getHandle(deliveryId).describe()).taskQueue).toBe(taskQueueFor(h.taskQueue, 'sandbox'));
  } finally {
    await stopWorkers();
  }
}, 60_000);
