/**
 * Helpers for the webhook hardening tests (relay, replay, attempt recording): events written the way
 * the charge store writes them, a payments worker without the outbox relay (so a test runs relay
 * passes itself), a Temporal client pointed at a dead address, and a bounded poll that throws.
 */
import { setTimeout as delay } from 'node:timers/promises';
import net from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { appendEvent } from '../../src/persistence/events/event-log';
import { createMerchant } from '../../src/persistence/merchants/merchant-store';
import type { Orm } from '../../src/persistence/orm';
import type { Caller } from '../../src/services/context';
import { newId, randomBase62 } from '../../src/support/new-id';
import { createPaymentsWorker, type PaymentsWorkerOptions } from '../../workers/create-worker';
import type { WorkerGroup } from '../../workers/worker-group';
import type { Harness } from './harness';
import { testPayloadCodec } from './payload-codec';

/** A new merchant as the sandbox caller of a service, plus its sandbox key for HTTP calls. */
export async function sandboxCaller(orm: Orm): Promise<{ caller: Caller; key: string }> {
  const m = await createMerchant(orm, `Webhook merchant ${randomBase62(6)}`);
  return { caller: { merchantId: m.id, environment: 'sandbox', keyId: m.testKey.id, merchantVerified: false }, key: m.testKey.secret };
}

/** One event of the caller's account, written like a state change writes it (not yet dispatched). */
export async function emitEvent(orm: Orm, caller: Caller, type = 'transaction.succeeded'): Promise<string> {
  const tag = randomBase62(10);
  const appended = await orm.em.fork().transactional((em) =>
    appendEvent(
      em,
      { merchantId: caller.merchantId, environment: caller.environment, type, resourceType: 'transaction', resourceId: `txn_${tag}`, createdAt: new Date().toISOString(), dataJson: `{"tag":"${tag}"}` },
      `webhook-test-${tag}`,
    ),
  );
  return appended.id;
}

/** Polls `probe` until it returns something other than undefined/false; throws after `timeoutMs`. */
/**
 * A pending delivery of a new `transaction.succeeded` event to an endpoint, written by hand (no
 * relay, no workflow): for tests that run the delivery activity themselves. Returns its id.
 */
export async function handMadeDelivery(orm: Orm, caller: Caller, endpointId: string): Promise<string> {
  const eventId = await emitEvent(orm, caller, 'transaction.succeeded');
  const id = newId('delivery');
  await orm.em.getConnection().execute(
    `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, created_at, updated_at, workflow_started_at)
     values (?, ?, ?, ?, ?, 'transaction.succeeded', 'pending', date_trunc('milliseconds', now()), now(), now())`,
    [id, endpointId, eventId, caller.merchantId, caller.environment],
  );
  return id;
}

export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(100);
  }
}

/**
 * The payments worker on the harness's task queue as workers/main.ts builds it (with `options` on top:
 * slots, notification settings), running, without the outbox relay.
 */
export async function startBareWorker(h: Harness, options: Partial<PaymentsWorkerOptions> = {}): Promise<{ worker: WorkerGroup; stop(): Promise<void> }> {
  const { worker, connection } = await createPaymentsWorker({
    orm: h.orm,
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    namespace: 'default',
    taskQueue: h.taskQueue,
    secretBox: h.deps.secretBox,
    payloadCodec: testPayloadCodec(),
    webhooks: h.deps.webhooks,
    ...options,
  });
  const running = worker.run();
  return {
    worker,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A Temporal client whose server is down: every call fails with UNAVAILABLE. The gRPC retry
 * interceptor is left out so a call fails at once instead of after its retries.
 */
export async function deadTemporalClient(): Promise<{ client: Client; close(): Promise<void> }> {
  const connection = Connection.lazy({ address: `127.0.0.1:${await closedPort()}`, interceptors: [], connectTimeout: '2 seconds' });
  return { client: new Client({ connection, namespace: 'default' }), close: () => connection.close() };
}
