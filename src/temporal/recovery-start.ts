import type { Client } from '@temporalio/client';
import { WEBHOOK_RECOVERY_WORKFLOW_TYPE, type WebhookRecoveryInput } from '../domain/webhook-recovery';
import { workflowDetails } from '../domain/workflow-details';
import type { webhookRecoveryWorkflow } from '../../workflows/webhook-recovery';
import { onceStartOptions, startedOnce } from './start-once';
import { webhookTaskQueueFor } from './task-queues';

/**
 * Starts a recovery's workflow (workflow id = recovery id, issue 49) on its environment's webhook
 * delivery queue (`<base>-<environment>-webhooks`, where the resends it starts run too). Starting one
 * that exists does nothing: a recovery walks once. Resolves once the workflow is known to exist; throws
 * when that is unknown (the relay's sweep starts it later: findUnstartedRecoveries).
 */
export async function startRecoveryWorkflow(client: Client, input: WebhookRecoveryInput): Promise<'started' | 'already_started'> {
  return startedOnce(() =>
    client.workflow.start<typeof webhookRecoveryWorkflow>(WEBHOOK_RECOVERY_WORKFLOW_TYPE, {
      workflowId: input.recoveryId,
      taskQueue: webhookTaskQueueFor(input.baseQueue, input.environment),
      args: [input],
      staticSummary: `${input.environment} webhook recovery of ${input.endpointId}`,
      staticDetails: workflowDetails({ kind: 'Webhook recovery', id: input.recoveryId, merchantId: input.merchantId, environment: input.environment, extra: { endpoint: input.endpointId } }),
      ...onceStartOptions(input.merchantId, input.environment),
    }),
  );
}
