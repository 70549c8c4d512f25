import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { REFUND_WORKFLOW_TYPE, type RefundRecord, type RefundStart } from '../domain/refund';
import { refundSearchAttributePairs } from '../domain/refund-search-attributes';
import { SA } from '../domain/search-attributes';
import { taskQueueFor } from './task-queues';
import { workflowDetails } from '../domain/workflow-details';

/** No customer data: environment, amount, charge and merchant. */
export const refundSummary = (refund: RefundRecord) => `${refund.environment} refund ${refund.amount} ${refund.currency} of ${refund.chargeId} for ${refund.merchantId}`;

type RefundWorkflowFn = (input: RefundStart) => Promise<unknown>;

/**
 * The start of a refund's workflow once the API has written the refund: workflow id = refund id,
 * input `{ refundId }` only (the workflow reads the rest from the database), on the queue of the
 * refund's environment, with a static summary and the search attributes of the record as written. A
 * refund id is never run twice: a running or closed workflow under it is an AlreadyStarted error.
 */
export function refundStartOptions(refund: RefundRecord, baseQueue: string): WorkflowStartOptions<RefundWorkflowFn> & { args: [RefundStart] } {
  return {
    workflowId: refund.id,
    taskQueue: taskQueueFor(baseQueue, refund.environment),
    args: [{ refundId: refund.id }],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    staticSummary: refundSummary(refund),
    staticDetails: workflowDetails({ kind: 'Refund', id: refund.id, merchantId: refund.merchantId, environment: refund.environment, amount: refund.amount, currency: refund.currency, extra: { charge: refund.chargeId } }),
    typedSearchAttributes: [...refundSearchAttributePairs(refund), { key: SA.NeedsAttention, value: false }],
  };
}

/**
 * Starts the refund's workflow (the API after its commit, the refund-start relay later). Resolves
 * 'started' or 'already_started'; throws when that is unknown (Temporal unreachable, a deadline).
 */
export async function startRefundWorkflow(client: Client, baseQueue: string, refund: RefundRecord): Promise<'started' | 'already_started'> {
  try {
    await client.workflow.start<RefundWorkflowFn>(REFUND_WORKFLOW_TYPE, refundStartOptions(refund, baseQueue));
    return 'started';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return 'already_started';
  }
}
