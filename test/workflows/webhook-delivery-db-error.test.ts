import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type LogLevel } from '@temporalio/worker';
import { DETERMINISTIC_DB_ERROR } from '../../src/persistence/db-errors';
import { newId, randomBase62 } from '../../src/support/new-id';
import { startDeliveryWorkflow } from '../../src/temporal/delivery-start';
import { webhookTaskQueueFor } from '../../src/temporal/task-queues';
import { installRuntime, workflowBundle } from '../../workers/create-worker';
import { testServerPath } from '../support/binaries';
import { declareSearchAttributes } from './support/charge-env';
import { deliveryInput, FakeWebhookReceiver, succeeded } from './support/fake-webhook-activities';

// webhookDeliveryWorkflow's retry options: a deterministic database error (SQLSTATE class 22/23, the
// activity's DETERMINISTIC_DB_ERROR) is never retried, even when the failure itself is not flagged
// non-retryable, because each retry would POST the webhook again. A plain error still is retried.

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
const fake = new FakeWebhookReceiver();
const taskQueue = `webhooks-db-${randomBase62(8)}`;

beforeAll(async () => {
  installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
  try {
    await declareSearchAttributes(env);
    worker = await Worker.create({ connection: env.nativeConnection, taskQueue: webhookTaskQueueFor(taskQueue, 'sandbox'), workflowBundle: await workflowBundle(), activities: fake.activities });
  } catch (error) {
    await env.teardown();
    throw error;
  }
  running = worker.run();
});
afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await env?.teardown();
});

test('a DETERMINISTIC_DB_ERROR from the attempt fails the delivery at once, without a second call', async () => {
  const input = deliveryInput(newId('delivery'));
  // Deliberately not flagged non-retryable: the workflow's retry policy must stop it by its type.
  const dbError = ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: 'invalid byte sequence for encoding "UTF8": 0x00 (SQLSTATE 22021)', nonRetryable: false });
  fake.script(input.deliveryId, [dbError, succeeded()]);
  await startDeliveryWorkflow(env.client, taskQueue, input);
  const failure = await env.client.workflow.getHandle(input.deliveryId).result().catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(fake.callsFor(input.deliveryId)).toHaveLength(1);
});
