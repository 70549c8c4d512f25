import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DETERMINISTIC_DB_ERROR } from '../../src/persistence/db-errors';
import { newId } from '../../src/support/new-id';
import { startDeliveryWorkflow } from '../../src/temporal/delivery-start';
import { deliveryInput, FakeWebhookReceiver, succeeded } from './support/fake-webhook-activities';
import { startDeliveryQueueWorker, type TimeSkippingWorkers } from './support/time-skipping-workers';

// webhookDeliveryWorkflow's retry options: a deterministic database error (SQLSTATE class 22/23, the
// activity's DETERMINISTIC_DB_ERROR) is never retried, even when the failure itself is not flagged
// non-retryable, because each retry would POST the webhook again. A plain error still is retried.

let ts: TimeSkippingWorkers;
let env: TestWorkflowEnvironment;
let taskQueue: string;
const fake = new FakeWebhookReceiver();

beforeAll(async () => {
  ts = await startDeliveryQueueWorker('webhooks-db', fake.activities);
  ({ env, taskQueue } = ts);
});
afterAll(() => ts?.close());

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
