import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { ChargeDraft, ChargeRecord } from '../domain/charge';
import type { ChargeStart } from '../domain/charge-start';
import { chargeSearchAttributePairs } from '../domain/search-attributes';
import { chargeState } from '../domain/charge-state';
import type { chargeWorkflow } from '../../workflows/charge';
import type { chargeReversalWorkflow } from '../../workflows/charge-reversal';
import { taskQueueFor } from './task-queues';
import { workflowDetails } from '../domain/workflow-details';

const chargeDetails = (charge: ChargeRecord, extra?: Record<string, string>) =>
  workflowDetails({ kind: 'Charge', id: charge.id, merchantId: charge.merchantId, environment: charge.environment, amount: charge.amount, currency: charge.currency, channel: charge.channel, extra });
const chargeSummary = (charge: ChargeRecord) => `${charge.environment} charge ${charge.amount} ${charge.currency} via ${charge.channel} for ${charge.merchantId}`;

/**
 * The start of a charge's workflow once the API has written the charge: workflow id = charge id,
 * input `{ chargeId }` only (the workflow reads the rest from the database), summary and search
 * attributes from the record as written. A charge id is never run twice: a running or closed
 * workflow under it is an AlreadyStarted error. `baseQueue` is TEMPORAL_TASK_QUEUE: the run goes to
 * the queue of the charge's environment (temporal/task-queues.ts), as every start below.
 */
export function chargeStartOptions(charge: ChargeRecord, baseQueue: string): WorkflowStartOptions<typeof chargeWorkflow> & { args: [ChargeStart] } {
  return {
    workflowId: charge.id,
    taskQueue: taskQueueFor(baseQueue, charge.environment),
    args: [{ chargeId: charge.id }],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    staticSummary: chargeSummary(charge),
    staticDetails: chargeDetails(charge),
    typedSearchAttributes: chargeSearchAttributePairs(charge),
  };
}

/**
 * Starts the charge's workflow (the API after its commit, the charge-start relay later). Resolves
 * once the workflow is known to exist: 'started', or 'already_started' (started before, by the API,
 * the relay or, for older charges, update-with-start). Throws when that is unknown (Temporal
 * unreachable, a deadline): the relay starts it later.
 */
export async function startChargeWorkflow(client: Client, baseQueue: string, charge: ChargeRecord): Promise<'started' | 'already_started'> {
  try {
    await client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', chargeStartOptions(charge, baseQueue));
    return 'started';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return 'already_started';
  }
}

/**
 * The start half of the update-with-start that POST /v1/charges used before it wrote charges itself
 * (the input is the whole draft). Kept for the workflow tests of runs started that way, which are
 * still in flight after a deploy and whose histories must replay.
 */
export function chargeStartOperation(draft: ChargeDraft, baseQueue: string): WithStartWorkflowOperation<typeof chargeWorkflow> {
  return new WithStartWorkflowOperation<typeof chargeWorkflow>('chargeWorkflow', {
    workflowId: draft.id,
    taskQueue: taskQueueFor(baseQueue, draft.environment),
    args: [draft],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    staticSummary: chargeSummary(draft),
    staticDetails: chargeDetails(draft),
    typedSearchAttributes: chargeSearchAttributePairs(draft),
  });
}

/** An operator reversal: a new run of chargeReversalWorkflow under the charge's own id. */
export function reversalStartOptions(
  charge: ChargeRecord,
  baseQueue: string,
  requestedAt: string,
  request: { operator: string; reason: string; batch_id?: string },
): WorkflowStartOptions<typeof chargeReversalWorkflow> {
  return {
    workflowId: charge.id,
    taskQueue: taskQueueFor(baseQueue, charge.environment),
    args: [{ chargeId: charge.id, requestedAt, ...request, before: chargeState(charge) }],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    staticSummary: `operator reversal of ${charge.id}`,
    staticDetails: chargeDetails(charge, { operator: request.operator, reason: request.reason }),
    typedSearchAttributes: chargeSearchAttributePairs(charge),
  };
}
