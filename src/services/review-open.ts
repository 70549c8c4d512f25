import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ChangeActor } from '../domain/operator-action';
import { paymentReviewWorkflowId, reviewedKind, reviewedPaymentId, reviewedProduct } from '../domain/payment-review';
import { lateSubject } from '../persistence/partner/late-answer-store';
import { recordChange } from '../persistence/operators/change-audit';
import type { Orm } from '../persistence/orm';
import { flagPaymentReview } from './payment-review';

/** Why `payments review-open` is refused (exit 1, nothing written or started). */
export class ReviewOpenRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReviewOpenRefusedError';
  }
}

/**
 * `payments review-open ID --reason TEXT --operator NAME` (issue 43): opens the payment review of a
 * live charge, payout or settlement batch again, or flags the one running. A review that failed (a
 * non-retryable error: a misconfigured partner, a database refusal) or ended while money was still
 * out (a return that failed) could not be reopened; its new run asks the partner again, compares,
 * and follows late money and its return as the first did. The audit row (`payment.review_open`: the
 * review's state before) is committed first, so no reopening goes unrecorded; the review is then
 * flagged (signalWithStart on `review-<id>`, source `late_watch`, the reason naming the operator).
 */
export async function openPaymentReview(
  deps: { orm: Orm; client: Client; taskQueue: string },
  id: string,
  actor: ChangeActor,
): Promise<{ paymentId: string; review: string; before: string; reopened: boolean; audit_id: string }> {
  const paymentId = reviewedPaymentId(id) ?? id;
  const kind = reviewedKind(paymentId);
  if (!kind) throw new ReviewOpenRefusedError(`${paymentId} is not a charge, payout, settlement or refund (txn_…, po_…, stl_…, re_…)`);
  const subject = await lateSubject(deps.orm, paymentId);
  if (!subject) throw new ReviewOpenRefusedError(`${kind} ${paymentId} does not exist`);
  if (subject.environment !== 'live') throw new ReviewOpenRefusedError(`${kind} ${paymentId} is a sandbox payment: it never reached a partner, there is nothing to review`);
  const reviewId = paymentReviewWorkflowId(paymentId);
  let before = 'none';
  try {
    before = (await deps.client.workflow.getHandle(reviewId).describe()).status.name;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  const auditId = await deps.orm.em.fork().transactional((em) =>
    recordChange(em, actor, {
      action: 'payment.review_open',
      subjectId: paymentId,
      merchantId: subject.merchantId,
      environment: subject.environment,
      before: { review: before, status: subject.status },
      after: { review: 'RUNNING', status: subject.status },
    }),
  );
  await flagPaymentReview(
    deps.client,
    {
      paymentId,
      product: reviewedProduct(paymentId),
      merchantId: subject.merchantId,
      environment: subject.environment,
      source: 'late_watch',
      reason: `review opened again by ${actor.operator}: ${actor.reason}`.slice(0, 500),
    },
    deps.taskQueue,
  );
  return { paymentId, review: reviewId, before, reopened: before !== 'RUNNING', audit_id: auditId };
}
