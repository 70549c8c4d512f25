import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { SA } from '../domain/search-attributes';
import type { webhookDeliveryWorkflow, WebhookDeliveryInput } from '../../workflows/webhook-delivery';

/**
 * Starts a delivery workflow (workflow id = delivery id). Starting one that exists, running or
 * closed, does nothing: a delivery id is never run twice.
 */
export async function startDeliveryWorkflow(client: Client, taskQueue: string, input: WebhookDeliveryInput): Promise<void> {
  try {
    await client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
      workflowId: input.deliveryId,
      taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
      staticSummary: `${input.environment} webhook ${input.eventType} ${input.eventId} to ${input.endpointId}`,
      typedSearchAttributes: [
        { key: SA.MerchantId, value: input.merchantId },
        { key: SA.Environment, value: input.environment },
      ],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
