import type { Client } from '@temporalio/client';
import { workflowDetails } from '../domain/workflow-details';
import type { NotificationInput, notificationWorkflow } from '../../workflows/notification';
import { onceStartOptions, startedOnce } from './start-once';
import { webhookTaskQueueFor } from './task-queues';

/**
 * Starts a notification's workflow (workflow id = notification id) on the delivery queue of its
 * environment (`<baseQueue>-<environment>-webhooks`, docs/notifications.md "Queue"): like a webhook,
 * an attempt holds no pooled connection while the receiver answers. Starting one that exists,
 * running or closed, does nothing: a notification id is never run twice. Resolves once the workflow is
 * known to exist; throws when that is unknown (the relay's sweep starts it later). No recipient data
 * in the summary, the details or the input.
 */
export async function startNotificationWorkflow(client: Client, baseQueue: string, input: NotificationInput): Promise<'started' | 'already_started'> {
  return startedOnce(() =>
    client.workflow.start<typeof notificationWorkflow>('notificationWorkflow', {
      workflowId: input.notificationId,
      taskQueue: webhookTaskQueueFor(baseQueue, input.environment),
      // Issue 48: attempt 1 runs as a local activity (workflows/notification.ts).
      args: [{ ...input, firstAttemptLocal: input.firstAttemptLocal ?? true }],
      staticSummary: `${input.environment} notification ${input.kind} for ${input.merchantId}`,
      staticDetails: workflowDetails({ kind: 'Notification', id: input.notificationId, merchantId: input.merchantId, environment: input.environment, extra: { kind: input.kind } }),
      ...onceStartOptions(input.merchantId, input.environment),
    }),
  );
}
