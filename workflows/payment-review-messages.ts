import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { CLOSE_REVIEW_UPDATE, PAYMENT_REVIEW_QUERY, RETURN_CALLBACK_SIGNAL, REVIEW_FLAG_SIGNAL, SETTLE_LATE_ANSWER_UPDATE, type CloseReviewRequest, type PaymentReviewFlag, type PaymentReviewState, type SettleLateRequest } from '../src/domain/payment-review';

/** One more reason to look at a payment (or, `resolved: true`, its source's reasons closed): how everyone flags a review (signalWithStart). */
export const reviewFlagSignal = defineSignal<[PaymentReviewFlag]>(REVIEW_FLAG_SIGNAL);

/** The partner called back for the review's return transfer: ask it now (no payload; the partner's status decides). */
export const returnCallbackSignal = defineSignal<[]>(RETURN_CALLBACK_SIGNAL);

/** The review's state: phase, reasons, the partner's and our status, how it was settled. */
export const paymentReviewQuery = defineQuery<PaymentReviewState>(PAYMENT_REVIEW_QUERY);

/** What a settleLateAnswer update answers: the review's state after the settlement. */
export interface SettleLateResult {
  paymentId: string;
  action: SettleLateRequest['action'];
  status: string;
  review: PaymentReviewState;
}

/**
 * An operator settles late money (`payments settle-late ID --action credit|return|accept --reason TEXT`,
 * or the Temporal UI with `{"action":"credit","operator":"…","reason":"…"}`). Validated by the review
 * (operator, reason, an action that fits the payment, late money waiting); applied in one database
 * transaction; audited (`payment.settle_late`, before and after).
 */
export const settleLateAnswerUpdate = defineUpdate<SettleLateResult, [SettleLateRequest]>(SETTLE_LATE_ANSWER_UPDATE);

/**
 * An operator closes a review's contradiction (`payments review-close ID --reason TEXT`, or the Temporal
 * UI with `{"operator":"…","reason":"…"}`): validated (operator, reason, a contradiction open), audited
 * (`payment.review_close`); answers the review's state. Reconciliation reasons are closed by their
 * break's resolution, not here.
 */
export const closeReviewUpdate = defineUpdate<PaymentReviewState, [CloseReviewRequest]>(CLOSE_REVIEW_UPDATE);
