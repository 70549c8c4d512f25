import { WithStartWorkflowOperation, type WorkflowStartOptions } from '@temporalio/client';
import type { ChargeDraft, ChargeRecord } from '../domain/charge';
import { chargeSearchAttributePairs } from '../domain/search-attributes';
import type { chargeWorkflow } from '../../workflows/charge';
import type { chargeReversalWorkflow } from '../../workflows/charge-reversal';

/**
 * The start half of POST /v1/charges' update-with-start. Workflow id = charge id; a running workflow
 * is reused (the update is deduplicated by its id), a closed one is never started again.
 */
export function chargeStartOperation(draft: ChargeDraft, taskQueue: string): WithStartWorkflowOperation<typeof chargeWorkflow> {
  return new WithStartWorkflowOperation<typeof chargeWorkflow>('chargeWorkflow', {
    workflowId: draft.id,
    taskQueue,
    args: [draft],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    staticSummary: `${draft.environment} charge ${draft.amount} ${draft.currency} via ${draft.channel} for ${draft.merchantId}`,
    typedSearchAttributes: chargeSearchAttributePairs(draft),
  });
}

/** An operator reversal: a new run of chargeReversalWorkflow under the charge's own id. */
export function reversalStartOptions(charge: ChargeRecord, taskQueue: string, requestedAt: string): WorkflowStartOptions<typeof chargeReversalWorkflow> {
  return {
    workflowId: charge.id,
    taskQueue,
    args: [{ chargeId: charge.id, requestedAt }],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    staticSummary: `operator reversal of ${charge.id}`,
    typedSearchAttributes: chargeSearchAttributePairs(charge),
  };
}
