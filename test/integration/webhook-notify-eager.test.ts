/**
 * The relay's eager-start option (off in workers/main.ts, see docs/architecture.md "Webhook
 * latency"): with its client on the payments worker's own NativeConnection, a woken pass starts the
 * delivery eagerly and it is sent once. Real PostgreSQL, Temporal dev server and receiver.
 */
import { Client } from '@temporalio/client';
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
import { codecDataConverter } from '../../src/temporal/payload-codec';

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

test('eager start through the worker connection: the delivery is started and sent once', async () => {
  const taskQueue = `eager-${randomBase62(8)}`;
  const { worker, connection } = await createPaymentsWorker({
    orm: h.orm,
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    namespace: 'default',
    taskQueue,
    secretBox: h.deps.secretBox,
    payloadCodec: testPayloadCodec(),
    webhooks: h.deps.webhooks,
  });
  const running = worker.run();
  const relay = startOutboxRelay(
    {
      orm: h.orm,
      client: new Client({ connection, namespace: 'default', dataConverter: codecDataConverter(testPayloadCodec()) }),
      eagerStart: true,
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
    const [row] = await h.orm.em.getConnection().execute(`select workflow_started_at from webhook_deliveries where id = ?`, [deliveryId]);
    expect(row.workflow_started_at).not.toBeNull();
  } finally {
    await relay.stop();
    worker.shutdown();
    await running;
    await connection.close();
  }
}, 90_000);
