import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { PAYMENT_REVIEW_ID_PREFIX, reviewedPaymentId } from '../domain/payment-review';
import type { OperatorFields } from '../domain/operator-action';
import type { Orm } from '../persistence/orm';
import { newId } from '../support/new-id';
import { withinDeadline } from '../temporal/deadline';
import { openPaymentReview } from './review-open';

/** The closed states of a review's run that mean it ended while open: nothing finished it (a terminate by hand, the server's history limit, a failure). */
export const REVIEW_ENDED_OPEN: readonly string[] = ['TERMINATED', 'FAILED', 'TIMED_OUT', 'CANCELLED'];

export const isReviewId = (id: string) => id.startsWith(PAYMENT_REVIEW_ID_PREFIX);

/**
 * `payments restart review-<paymentId>` (issue 43): a payment review whose run ended while open
 * (terminated, failed, timed out or cancelled: `payments stuck` lists it) starts again as
 * `payments review-open` does (src/services/review-open.ts): audited first (`payment.review_open`, the
 * review's state before), then a new run asks the partner again, finds the late money and its
 * settlement in the database, and follows a return still out. Refused while its run is running
 * (nothing to restart), when it completed (it finished; `payments review-open` looks again) and when
 * the payment never had a review.
 */
export async function restartReview(deps: { orm: Orm; client: Client; taskQueue: string }, reviewId: string, request: OperatorFields, deadlineMs = 10_000) {
  const paymentId = reviewedPaymentId(reviewId);
  if (!paymentId) throw new Error(`${reviewId}: not a payment review id (review-txn_…, review-po_…, review-stl_…)`);
  const execution = await withinDeadline(deps.client, deadlineMs, () => deps.client.workflow.getHandle(reviewId).describe()).then(
    (d) => d.status.name as string,
    (error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return 'NOT_FOUND';
      throw error;
    },
  );
  if (execution === 'RUNNING') throw new Error(`payment review ${reviewId}: its workflow is running; nothing to restart (payments stuck says why it waits)`);
  if (execution === 'NOT_FOUND') throw new Error(`payment review ${reviewId}: ${paymentId} never had a review; to open one: payments review-open ${paymentId} --reason TEXT --operator NAME`);
  if (!REVIEW_ENDED_OPEN.includes(execution)) throw new Error(`payment review ${reviewId} is ${execution}: it finished, nothing to restart; to look again: payments review-open ${paymentId} --reason TEXT --operator NAME`);
  const opened = await openPaymentReview(deps, paymentId, { operator: request.operator, reason: `restart (the previous run ${execution}): ${request.reason}`.slice(0, 500), requestId: newId('request') });
  return { id: reviewId, type: 'payment_review', status: 'open', previous_workflow: execution, restarted: true, payment_id: paymentId, audit_id: opened.audit_id };
}
