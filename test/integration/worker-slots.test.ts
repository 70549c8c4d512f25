/**
 * The worker's slots are sized to its database pool (src/runtime/worker-capacity.ts): a real worker on
 * the suite's Temporal server gets its fixed-size slot suppliers from the ORM's pool, split between
 * its Workers (one per task queue: sandbox, live, legacy, and each environment's webhook deliveries), and a pool too small for the requested
 * slots is refused before the worker polls.
 */
import { openOrm, type Orm } from '../../src/persistence/orm';
import { randomBase62 } from '../../src/support/new-id';
import { createSecretBox, parseSecretsKey } from '../../src/support/secret-box';
import { testPayloadCodec } from '../support/payload-codec';
import { createPaymentsWorker } from '../../workers/create-worker';
import type { WorkerGroup } from '../../workers/worker-group';
import type { SlotSettings } from '../../src/runtime/worker-settings';
import { testWebhookConfig } from '../support/harness';

const orms: Orm[] = [];
afterAll(async () => {
  for (const orm of orms) await orm.close();
});

async function workerOn(poolMax: number, slots?: SlotSettings) {
  const orm = await openOrm(process.env.TEST_DATABASE_URL!, poolMax);
  orms.push(orm);
  return createPaymentsWorker({
    orm,
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    namespace: 'default',
    taskQueue: `slots-${randomBase62(6)}`,
    secretBox: createSecretBox(parseSecretsKey(process.env.TEST_SECRETS_KEY!)),
    payloadCodec: testPayloadCodec(),
    webhooks: testWebhookConfig(),
    ...(slots ? { slots } : {}),
  });
}

/** Each Worker's task queue and fixed slot counts, by role. */
function slotsOf(group: WorkerGroup) {
  return Object.fromEntries(
    Object.entries(group.workers).map(([role, worker]) => {
      const tuner = worker.options.tuner as unknown as Record<string, { type: string; numSlots: number }>;
      expect(tuner.localActivityTaskSlotSupplier.type).toBe('fixed-size');
      expect(tuner.activityTaskSlotSupplier.type).toBe('fixed-size');
      return [role, { taskQueue: worker.options.taskQueue, local: tuner.localActivityTaskSlotSupplier.numSlots, activity: tuner.activityTaskSlotSupplier.numSlots }];
    }),
  );
}

test('a worker on a pool of 30 (10 kept for the background loops) runs at most 8 local activities and 8 activities at once, split live 4, sandbox 3, legacy 1, beside 200 send slots per delivery Worker', async () => {
  const { worker, connection } = await workerOn(30);
  const base = worker.taskQueues.legacy!;
  // A created worker must run (and shut down) before its connection can close.
  await worker.runUntil(async () => {
    expect(slotsOf(worker)).toEqual({
      sandbox: { taskQueue: `${base}-sandbox`, local: 3, activity: 3 },
      live: { taskQueue: `${base}-live`, local: 4, activity: 4 },
      legacy: { taskQueue: base, local: 1, activity: 1 },
      'sandbox-webhooks': { taskQueue: `${base}-sandbox-webhooks`, local: 200, activity: 200 },
      'live-webhooks': { taskQueue: `${base}-live-webhooks`, local: 200, activity: 200 },
    });
  });
  await connection.close();
});

test('a live-only worker process without the legacy queue gives live every slot', async () => {
  const { worker, connection } = await workerOn(30, { environments: ['live'], legacySlots: 0 });
  await worker.runUntil(async () => {
    expect(Object.keys(slotsOf(worker))).toEqual(['live', 'live-webhooks']);
    expect(slotsOf(worker).live).toMatchObject({ local: 8, activity: 8 });
  });
  await connection.close();
});

test('slots that could exhaust the pool are refused at start-up', async () => {
  await expect(workerOn(17, { localActivitySlots: 100, activitySlots: 100 })).rejects.toThrow(/exceed the database pool/);
});
