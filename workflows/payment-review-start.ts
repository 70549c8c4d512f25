import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { log, ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import { paymentReviewWorkflowId, PAYMENT_REVIEW_WORKFLOW_TYPE, type PaymentReviewStart } from '../src/domain/payment-review';
import { reviewSearchAttributePairs } from '../src/domain/payment-review-search-attributes';
import { workflowDetails } from '../src/domain/workflow-details';

/**
 * Starts the payment review of a payment from inside its own workflow (issue 29; the charge, payout
 * or settlement workflow, when it ends a live payment while the partner may still answer): a child
 * `paymentReviewWorkflow` with id `review-<paymentId>`, on the same task queue, parent close policy
 * ABANDON (it outlives the payment's run). A review already running for the payment is left as it is
 * (its reasons do not grow from here: a client adds one with the `reviewFlag` signal). Answers once
 * the child has started.
 */
export async function startReviewFromWorkflow(start: PaymentReviewStart): Promise<void> {
  const workflowId = paymentReviewWorkflowId(start.paymentId);
  try {
    await startChild(PAYMENT_REVIEW_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: workflowInfo().taskQueue,
      args: [start],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: reviewSearchAttributePairs(start),
      staticSummary: `payment review of ${start.paymentId} (${start.source})`,
      staticDetails: workflowDetails({ kind: 'Payment review', id: start.paymentId, merchantId: start.merchantId, environment: start.environment, extra: { source: start.source, reason: start.reason } }),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    log.info('payment review already running', { paymentId: start.paymentId, source: start.source });
  }
}
