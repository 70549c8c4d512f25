import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { SA } from '../domain/search-attributes';
import type { webhookDeliveryWorkflow, WebhookDeliveryInput } from '../../workflows/webhook-delivery';
import { webhookTaskQueueFor } from './task-queues';
import { workflowDetails } from '../domain/workflow-details';

/**
 * Starts a delivery workflow (workflow id = delivery id) on the delivery queue of the delivery's
 * environment (`<baseQueue>-<environment>-webhooks`; `baseQueue` is TEMPORAL_TASK_QUEUE; temporal/task-queues.ts). Starting one that exists, running or
 * closed, does nothing: a delivery id is never run twice. Resolves once the workflow is known to
 * exist ('started', 'started_eagerly' or 'already_started'); throws when that is unknown (Temporal unreachable, or a
 * timeout after which the start may or may not have happened). Callers then leave the delivery
 * pending without `workflow_started_at`, and the outbox relay's sweep starts it later.
 *
 * `eager`: request eager workflow start (the first workflow task comes back in the start's answer,
 * to a worker of this process, instead of through the task queue). Only for a client on the
 * NativeConnection of a Worker polling that environment's queue in this process; the server falls back to a
 * normal start when it declines, and a lost eager task is retried by the server after the workflow
 * task timeout like any other.
 */
/** A delivery row as the relay and a recovery read it: what a delivery workflow's input is made of. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  merchant_id: string;
  environment: 'sandbox' | 'live';
}

/** The delivery workflow's input for a stored delivery row. */
export function deliveryInputOf(d: DeliveryRow, retryScheduleMs: number[], localFirstAttempt: boolean): WebhookDeliveryInput {
  return {
    deliveryId: d.id,
    eventId: d.event_id,
    eventType: d.event_type,
    endpointId: d.endpoint_id,
    merchantId: d.merchant_id,
    environment: d.environment,
    retryScheduleMs,
    localFirstAttempt,
  };
}

/** `started_eagerly`: the server accepted eager start and handed the first workflow task back in its answer. */
export type DeliveryStart = 'started' | 'started_eagerly' | 'already_started';

export async function startDeliveryWorkflow(
  client: Client,
  baseQueue: string,
  input: WebhookDeliveryInput,
  /**
   * `afterClosedRun` (issue 32): the delivery's run closed without ending it (failed, terminated,
   * cancelled, timed out); a new run may take the id (ALLOW_DUPLICATE_FAILED_ONLY: never after a run that
   * completed).
   */
  options: { eager?: boolean; afterClosedRun?: boolean } = {},
): Promise<DeliveryStart> {
  try {
    const handle = await client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
      workflowId: input.deliveryId,
      taskQueue: webhookTaskQueueFor(baseQueue, input.environment),
      // Issue 48: the input decides attempt 1's kind (no patch marker in new runs); workflows/webhook-delivery.ts.
      args: [{ ...input, firstAttemptLocal: input.localFirstAttempt === true }],
      workflowIdReusePolicy: options.afterClosedRun ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
      staticSummary: `${input.environment} webhook ${input.eventType} ${input.eventId} to ${input.endpointId}`,
      staticDetails: workflowDetails({ kind: 'Webhook delivery', id: input.deliveryId, merchantId: input.merchantId, environment: input.environment, extra: { event: `${input.eventType} ${input.eventId}`, endpoint: input.endpointId } }),
      typedSearchAttributes: [
        { key: SA.MerchantId, value: input.merchantId },
        { key: SA.Environment, value: input.environment },
      ],
      ...(options.eager ? { requestEagerStart: true } : {}),
    });
    return handle.eagerlyStarted ? 'started_eagerly' : 'started';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return 'already_started';
  }
}
