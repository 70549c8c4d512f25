/**
 * The delivery path of issue 19 as workers/main.ts runs it (docs/architecture.md "Webhook latency"):
 * the relay's client on the payments worker's own NativeConnection starts the delivery eagerly on its
 * own queue (`<base>-sandbox-webhooks`), the first attempt runs as a local activity in the workflow
 * task that came back with the start, and it is sent once. Real PostgreSQL, Temporal dev server and
 * receiver.
 */
import { randomBase62 } from '../../src/support/new-id';
import { createLogger } from '../../src/support/logger';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import { startOutboxRelay } from '../../src/webhooks/outbox-relay';
import { fanOutDeliveryId } from '../../src/webhooks/delivery-id';
import { createPaymentsWorker } from '../../workers/create-worker';
import { startHarness, type Harness } from '../support/harness';
import { emitEvent, sandboxCaller } from '../support/webhook-fixtures';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';
import { testPayloadCodec } from '../support/payload-codec';
import { webhookTaskQueueFor } from '../../src/temporal/task-queues';

let h: Harness;
let rx: TestReceiver;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  rx = await startTestReceiver();
});
afterAll(async () => {
  await rx?.close();
  await h?.close();
});

test('eager start through the worker connection: the delivery is started eagerly on its own queue, sent from its first workflow task as a local activity, once', async () => {
  const taskQueue = `eager-${randomBase62(8)}`;
  const { worker, connection, client } = await createPaymentsWorker({
    orm: h.orm,
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    namespace: 'default',
    taskQueue,
    secretBox: h.deps.secretBox,
    payloadCodec: testPayloadCodec(),
    webhooks: h.deps.webhooks,
  });
  const running = worker.run();
  const starts: string[] = [];
  const relay = startOutboxRelay(
    {
      orm: h.orm,
      client,
      eagerStart: true,
      onStart: (environment, how) => starts.push(`${environment} ${how}`),
      taskQueue,
      retryScheduleMs: h.deps.webhooks.retryScheduleMs,
      log: createLogger('silent'),
    },
    60_000,
  );
  try {
    const { caller } = await sandboxCaller(h.orm);
    const endpoint = (await createEndpoint(h.deps, caller, { url: `${rx.url}/${caller.merchantId}`, subscribed_events: [] })).endpoint.id;
    const eventId = await emitEvent(h.orm, caller);
    const deliveryId = fanOutDeliveryId(eventId, endpoint);
    await rx.waitFor((ds) => ds.some((d) => d.headers['x-service-delivery-id'] === deliveryId), 30_000);
    expect(await h.temporal.client.workflow.getHandle(deliveryId).result()).toEqual({ status: 'succeeded', attempts: 1, reason: null });
    expect(rx.deliveries.filter((d) => d.headers['x-service-delivery-id'] === deliveryId)).toHaveLength(1);
    // Started eagerly, on the delivery queue, and sent from that first workflow task: a local
    // activity marker, no activity task scheduled.
    expect(starts).toEqual(['sandbox started_eagerly']);
    const handle = h.temporal.client.workflow.getHandle(deliveryId);
    expect((await handle.describe()).taskQueue).toBe(webhookTaskQueueFor(taskQueue, 'sandbox'));
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
    // One workflow task did it all: the eager one.
    expect(events.filter((e) => e.workflowTaskStartedEventAttributes)).toHaveLength(1);
    const [row] = await h.orm.em.getConnection().execute(`select workflow_started_at from webhook_deliveries where id = ?`, [deliveryId]);
    expect(row.workflow_started_at).not.toBeNull();
  } finally {
    await relay.stop();
    worker.shutdown();
    await running;
    await connection.close();
  }
}, 90_000);
