import type { Client } from '@temporalio/client';
import { SA } from '../domain/search-attributes';
import { fifoWorkflowId, type FifoWorkflowInput } from '../domain/webhook-fifo';
import { workflowDetails } from '../domain/workflow-details';
import { fifoSkipSignal, fifoWakeSignal, type webhookFifoWorkflow } from '../../workflows/webhook-fifo';
import { webhookTaskQueueFor } from './task-queues';

/**
 * Issue 49, ordered delivery: wakes an endpoint's FIFO workflow (workflows/webhook-fifo.ts), starting
 * it when no run is open (signal-with-start: one run per endpoint at a time, a completed one followed
 * by a new run). `skip`: tell it the delivery of this sequence was skipped (else: new deliveries wait).
 * Throws when Temporal did not confirm it (the relay's sweep wakes it later: fifoQueuesToWake).
 */
export async function wakeFifoWorkflow(client: Client, baseQueue: string, input: FifoWorkflowInput, skip?: { sequence: number }): Promise<void> {
  const common = {
    workflowId: fifoWorkflowId(input.endpointId),
    taskQueue: webhookTaskQueueFor(baseQueue, input.environment),
    args: [input] as [FifoWorkflowInput],
    staticSummary: `${input.environment} webhook FIFO queue of ${input.endpointId}`,
    staticDetails: workflowDetails({ kind: 'Webhook FIFO queue', id: fifoWorkflowId(input.endpointId), merchantId: input.merchantId, environment: input.environment, extra: { endpoint: input.endpointId } }),
    typedSearchAttributes: [
      { key: SA.MerchantId, value: input.merchantId },
      { key: SA.Environment, value: input.environment },
    ],
  };
  if (skip) {
    await client.workflow.signalWithStart<typeof webhookFifoWorkflow, [{ sequence: number }]>('webhookFifoWorkflow', { ...common, signal: fifoSkipSignal, signalArgs: [skip] });
  } else {
    await client.workflow.signalWithStart<typeof webhookFifoWorkflow, []>('webhookFifoWorkflow', { ...common, signal: fifoWakeSignal, signalArgs: [] });
  }
}
