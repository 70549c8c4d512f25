import type { Client } from '@temporalio/client';
import { paymentReviewWorkflowId, PAYMENT_REVIEW_WORKFLOW_TYPE, REVIEW_FLAG_SIGNAL, type PaymentReviewFlag, type PaymentReviewStart } from '../domain/payment-review';
import { reviewSearchAttributePairs } from '../domain/payment-review-search-attributes';
import { workflowDetails } from '../domain/workflow-details';
import { plainLine } from '../domain/plain-text';
import { taskQueueFor } from '../temporal/task-queues';

/**
 * Flags a payment for review (issue 29) from a client: the callback route (a late callback for a
 * closed payment), reconciliation (a break), an operator. signalWithStart on `review-<paymentId>`:
 * the running review gets one more reason (`reviewFlag`); none running, one starts with this one,
 * on the payment's environment's task queue (`taskQueueBase`: the deployment's base queue, as every
 * payment workflow), with MerchantId, Environment and NeedsAttention.
 */
export async function flagPaymentReview(client: Client, start: PaymentReviewStart, taskQueueBase?: string): Promise<void> {
  const base = taskQueueBase ?? process.env.TEMPORAL_TASK_QUEUE ?? 'payments';
  // The reason is shown to operators and kept in the review's state: plain text on one line (issue 43;
  // a break's or a callback's reason may carry the partner's text).
  start = { ...start, reason: plainLine(start.reason) };
  const flag: PaymentReviewFlag = { source: start.source, reason: start.reason };
  await client.workflow.signalWithStart(PAYMENT_REVIEW_WORKFLOW_TYPE, {
    workflowId: paymentReviewWorkflowId(start.paymentId),
    taskQueue: taskQueueFor(base, start.environment),
    args: [start],
    signal: REVIEW_FLAG_SIGNAL,
    signalArgs: [flag],
    typedSearchAttributes: reviewSearchAttributePairs(start),
    staticSummary: `payment review of ${start.paymentId} (${start.source})`,
    staticDetails: workflowDetails({ kind: 'Payment review', id: start.paymentId, merchantId: start.merchantId, environment: start.environment, extra: { source: start.source, reason: start.reason } }),
  });
}
