import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { PayoutRecord } from '../domain/payout';
import { payoutSearchAttributePairs } from '../domain/payout-search-attributes';
import { PAYOUT_WORKFLOW_TYPE, type PayoutStart } from '../domain/payout-start';
import { SA } from '../domain/search-attributes';
import { taskQueueFor } from './task-queues';
import { workflowDetails } from '../domain/workflow-details';

/** No customer data: environment, amount, channel, merchant (the recipient stays in the database). */
export const payoutSummary = (payout: PayoutRecord) =>
  `${payout.environment} payout ${payout.amount} ${payout.currency} via ${payout.channel} for ${payout.merchantId}${payout.status === 'held_for_review' ? ' (held for review)' : ''}`;

export const payoutDetails = (payout: PayoutRecord, extra?: Record<string, string>) =>
  workflowDetails({ kind: 'Payout', id: payout.id, merchantId: payout.merchantId, environment: payout.environment, amount: payout.amount, currency: payout.currency, channel: payout.channel, extra });

type PayoutWorkflowFn = (input: PayoutStart) => Promise<unknown>;

/**
 * The start of a payout's workflow once the API has written the payout: workflow id = payout id,
 * input `{ payoutId }` only, on the queue of the payout's environment, with a static summary and the
 * search attributes of the record as written (NeedsAttention false; the workflow raises it while
 * held for review). A payout id is never run twice.
 */
export function payoutStartOptions(payout: PayoutRecord, baseQueue: string): WorkflowStartOptions<PayoutWorkflowFn> & { args: [PayoutStart] } {
  return {
    workflowId: payout.id,
    taskQueue: taskQueueFor(baseQueue, payout.environment),
    args: [{ payoutId: payout.id }],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    staticSummary: payoutSummary(payout),
    staticDetails: payoutDetails(payout),
    typedSearchAttributes: [...payoutSearchAttributePairs(payout), { key: SA.NeedsAttention, value: false }],
  };
}

/**
 * Starts the payout's workflow (the API after its commit, the payout-start relay later). Resolves
 * 'started' or 'already_started'; throws when that is unknown (Temporal unreachable, a deadline).
 */
export async function startPayoutWorkflow(client: Client, baseQueue: string, payout: PayoutRecord): Promise<'started' | 'already_started'> {
  try {
    await client.workflow.start<PayoutWorkflowFn>(PAYOUT_WORKFLOW_TYPE, payoutStartOptions(payout, baseQueue));
    return 'started';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return 'already_started';
  }
}
