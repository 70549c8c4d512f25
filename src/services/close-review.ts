import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';
import { paymentReviewWorkflowId, reviewedPaymentId, type CloseReviewRequest } from '../domain/payment-review';
import type { TemporalHandle } from '../temporal/connection';
import { closeReviewUpdate } from '../../workflows/payment-review-messages';
import { withTemporalDeadline } from './dependency-unavailable';
import { operatorError } from './operator-errors';

/**
 * Operator action (`payments review-close ID --reason TEXT`): closes the contradiction a payment
 * review found (the partner said FAILED for a payment we recorded as paid, or a SUCCESSFUL named
 * another amount) once an operator has looked at it, through the review's audited `closeReview`
 * update (`payment.review_close`). `id` is the payment's id or its review's. Answers the review's state.
 */
export async function closeReview(temporal: TemporalHandle, id: string, request: CloseReviewRequest, deadlineMs: number = DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS): Promise<unknown> {
  const paymentId = reviewedPaymentId(id) ?? id;
  const deadline = Date.now() + deadlineMs;
  try {
    return await withTemporalDeadline(temporal, deadlineMs, () => temporal.client.workflow.getHandle(paymentReviewWorkflowId(paymentId)).executeUpdate(closeReviewUpdate, { args: [request] }));
  } catch (error) {
    throw operatorError(paymentId, 'closed', error, deadlineMs, deadline);
  }
}
