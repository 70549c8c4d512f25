/**
 * The worker's slots are sized to its database pool (src/runtime/worker-capacity.ts): a real worker on
 * the suite's Temporal server gets its fixed-size slot suppliers from the ORM's pool, and a pool too
 * small for the requested slots is refused before the worker polls.
 */
import { openOrm, type Orm } from '../../src/persistence/orm';
import { randomBase62 } from '../../src/support/new-id';
import { createSecretBox, parseSecretsKey } from '../../src/support/secret-box';
import { createPaymentsWorker } from '../../workers/create-worker';
import { testWebhookConfig } from '../support/harness';

const orms: Orm[] = [];
afterAll(async () => {
  for (const orm of orms) await orm.close();
});

async function workerOn(poolMax: number, slots?: { localActivitySlots?: number; activitySlots?: number }) {
  const orm = await openOrm(process.env.TEST_DATABASE_URL!, poolMax);
  orms.push(orm);
  return createPaymentsWorker({
    orm,
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    namespace: 'default',
    taskQueue: `slots-${randomBase62(6)}`,
    secretBox: createSecretBox(parseSecretsKey(process.env.TEST_SECRETS_KEY!)),
    webhooks: testWebhookConfig(),
    ...(slots ? { slots } : {}),
  });
}

test('a worker on a pool of 20 runs at most 9 local activities and 9 activities at once', async () => {
  const { worker, connection } = await workerOn(20);
  // A created worker must run (and shut down) before its connection can close.
  await worker.runUntil(async () => {
    const tuner = worker.options.tuner as unknown as Record<string, { type: string; numSlots: number }>;
    expect(tuner.localActivityTaskSlotSupplier).toEqual({ type: 'fixed-size', numSlots: 9 });
    expect(tuner.activityTaskSlotSupplier).toEqual({ type: 'fixed-size', numSlots: 9 });
  });
  await connection.close();
});

test('slots that could exhaust the pool are refused at start-up', async () => {
  await expect(workerOn(10, { localActivitySlots: 100, activitySlots: 100 })).rejects.toThrow(/exceed the database pool/);
});
