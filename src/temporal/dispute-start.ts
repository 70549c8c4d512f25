import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { DISPUTE_WORKFLOW_TYPE, type DisputeRecord, type DisputeStart } from '../domain/dispute';
import { disputeSearchAttributePairs } from '../domain/dispute-search-attributes';
import { SA } from '../domain/search-attributes';
import { taskQueueFor } from './task-queues';
import { workflowDetails } from '../domain/workflow-details';

/** No customer or evidence data: environment, amount, charge and merchant. */
export const disputeSummary = (dispute: DisputeRecord) => `${dispute.environment} dispute ${dispute.amount} ${dispute.currency} of ${dispute.chargeId} for ${dispute.merchantId}`;

type DisputeWorkflowFn = (input: DisputeStart) => Promise<unknown>;

/**
 * The start of a dispute's workflow once the API has written the dispute: workflow id = dispute id,
 * input `{ disputeId }` only (the workflow reads the rest from the database), on the queue of the
 * dispute's environment, with a static summary and the search attributes of the record as written. A
 * dispute id is never run twice: a running or closed workflow under it is an AlreadyStarted error.
 */
export function disputeStartOptions(dispute: DisputeRecord, baseQueue: string): WorkflowStartOptions<DisputeWorkflowFn> & { args: [DisputeStart] } {
  return {
    workflowId: dispute.id,
    taskQueue: taskQueueFor(baseQueue, dispute.environment),
    args: [{ disputeId: dispute.id }],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    staticSummary: disputeSummary(dispute),
    staticDetails: workflowDetails({ kind: 'Dispute', id: dispute.id, merchantId: dispute.merchantId, environment: dispute.environment, amount: dispute.amount, currency: dispute.currency, extra: { charge: dispute.chargeId } }),
    typedSearchAttributes: [...disputeSearchAttributePairs(dispute), { key: SA.NeedsAttention, value: false }],
  };
}

/**
 * Starts the dispute's workflow (the API after its commit, the dispute-start relay later). Resolves
 * 'started' or 'already_started'; throws when that is unknown (Temporal unreachable, a deadline).
 */
export async function startDisputeWorkflow(client: Client, baseQueue: string, dispute: DisputeRecord): Promise<'started' | 'already_started'> {
  try {
    await client.workflow.start<DisputeWorkflowFn>(DISPUTE_WORKFLOW_TYPE, disputeStartOptions(dispute, baseQueue));
    return 'started';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return 'already_started';
  }
}
