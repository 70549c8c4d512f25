import type { RailResource } from './rail-resource';
import type { PaymentReviewSource } from './payment-review-source';
import type { PaymentReviewCarry } from './review-wait';
import { hasControlCharacter } from './control-characters';
import { isWellFormedText, plainTextProblem } from './plain-text';
import { operatorRefusal } from './operator-action';

/**
 * Payment review (issue 29): the one place a payment that already ended gets an operator's
 * attention. A late answer from the partner (a callback or status for a closed payment), a charge
 * that expired while the partner still said pending, or a reconciliation break flags its payment;
 * the review workflow (`review-<paymentId>`) asks the partner for a final status, records money
 * that moved after we had ended the payment (late money), and waits for an operator to settle it.
 */

/** Who flagged a review. */
export { PAYMENT_REVIEW_SOURCES, type PaymentReviewSource } from './payment-review-source';

/** Input of paymentReviewWorkflow (and of flagPaymentReview / startReviewFromWorkflow). */
export interface PaymentReviewStart {
  paymentId: string;
  /** The partner resource its status is asked on: a refund's is `refund` (issue 45). */
  product: RailResource;
  merchantId: string;
  environment: 'sandbox' | 'live';
  source: PaymentReviewSource;
  reason: string;
  /** A run continued as new carries the review's wait here (REVIEW_WAIT_CONTINUES_PATCH; src/domain/review-wait.ts). */
  resume?: PaymentReviewCarry;
}

/**
 * The reviewFlag signal: one more reason to look at the payment. With `resolved: true` it closes the
 * open reasons of its source instead (a reconciliation break resolved through its audited path), so
 * a review whose partner agrees with us can end.
 */
export interface PaymentReviewFlag {
  source: PaymentReviewSource;
  reason: string;
  resolved?: boolean;
}

export const PAYMENT_REVIEW_ID_PREFIX = 'review-';
export const PAYMENT_REVIEW_WORKFLOW_TYPE = 'paymentReviewWorkflow';
export const REVIEW_FLAG_SIGNAL = 'reviewFlag';
/**
 * Signal name (issue 43, finding 2): the partner called back for the return transfer a review follows
 * (late money settled with `return`): the review asks the partner now instead of at its next poll. It
 * carries nothing; the review follows the partner's status, never the callback's body.
 */
export const RETURN_CALLBACK_SIGNAL = 'returnCallback';
export const SETTLE_LATE_ANSWER_UPDATE = 'settleLateAnswer';
export const PAYMENT_REVIEW_QUERY = 'paymentReview';
export const CLOSE_REVIEW_UPDATE = 'closeReview';

/**
 * Input of the closeReview update (`payments review-close ID --reason TEXT`): an operator has looked
 * at a contradiction no settle action covers (the partner said FAILED for a payment we recorded as
 * paid, or a SUCCESSFUL named another amount) and closes it, audited (`payment.review_close`).
 */
export interface CloseReviewRequest {
  operator: string;
  reason: string;
  batch_id?: string;
}

/** Why a closeReview request is refused regardless of the review (shape), or null. */
export function closeReviewRefusal(request: unknown): string | null {
  const operator = operatorRefusal(request);
  if (operator) return operator;
  const fields = request as Record<string, unknown>;
  for (const key of ['operator', 'reason'] as const) {
    const value = fields[key];
    if (typeof value === 'string' && hasControlCharacter(value)) return `"${key}" must not contain control characters`;
  }
  return null;
}

export const paymentReviewWorkflowId = (paymentId: string): string => `${PAYMENT_REVIEW_ID_PREFIX}${paymentId}`;

/** The payment id a review workflow id names, or null for another workflow. */
export function reviewedPaymentId(workflowId: string): string | null {
  return workflowId.startsWith(PAYMENT_REVIEW_ID_PREFIX) ? workflowId.slice(PAYMENT_REVIEW_ID_PREFIX.length) : null;
}

/** The kind of payment an id names (charge `txn_`, payout `po_`, settlement `stl_`, refund `re_`: issue 45), or null. */
export type ReviewedKind = 'charge' | 'payout' | 'settlement' | 'refund';
export function reviewedKind(paymentId: string): ReviewedKind | null {
  if (paymentId.startsWith('txn_')) return 'charge';
  if (paymentId.startsWith('po_')) return 'payout';
  if (paymentId.startsWith('stl_')) return 'settlement';
  if (paymentId.startsWith('re_')) return 'refund';
  return null;
}

/** The partner resource a payment moves on: charges collect, payouts and settlements transfer, refunds refund. */
export function reviewedProduct(paymentId: string): RailResource {
  return paymentId.startsWith('txn_') ? 'collection' : paymentId.startsWith('re_') ? 'refund' : 'disbursement';
}

/**
 * How an operator settles late money:
 * - `credit` (charges): the merchant is credited, the charge becomes succeeded late;
 * - `return` (charges): the money goes back to the payer through a partner transfer;
 * - `accept` (payouts, settlements): the partner paid, so the payment is recorded as paid late.
 */
export type SettleLateAction = 'credit' | 'return' | 'accept';
export const SETTLE_LATE_ACTIONS: readonly SettleLateAction[] = ['credit', 'return', 'accept'];

/** Input of the settleLateAnswer update (`payments settle-late ID --action … --reason …`). */
export interface SettleLateRequest {
  action: SettleLateAction;
  operator: string;
  reason: string;
  /** The partner's evidence (a transaction id, a statement line), kept in the audit row. */
  evidence?: string;
  batch_id?: string;
}

export const MAX_EVIDENCE_LENGTH = 500;

/** Why a settleLateAnswer request is refused regardless of the payment (shape), or null. */
export function settleLateRefusal(request: unknown): string | null {
  const operator = operatorRefusal(request);
  if (operator) return operator;
  const fields = request as Record<string, unknown>;
  if (typeof fields.action !== 'string' || !(SETTLE_LATE_ACTIONS as readonly string[]).includes(fields.action)) {
    return `"action" must be one of ${SETTLE_LATE_ACTIONS.join(', ')}`;
  }
  if (fields.evidence !== undefined && (typeof fields.evidence !== 'string' || fields.evidence.length > MAX_EVIDENCE_LENGTH)) {
    return `"evidence", when sent, is a string of at most ${MAX_EVIDENCE_LENGTH} characters`;
  }
  for (const key of ['operator', 'reason', 'evidence'] as const) {
    const value = fields[key];
    if (typeof value === 'string' && (hasControlCharacter(value) || !isWellFormedText(value))) return `"${key}" must not contain control characters`;
  }
  // Issue 43: the evidence follows the plain-text rule of the operator's name and reason (operatorRefusal above).
  if (typeof fields.evidence === 'string') return plainTextProblem('"evidence"', fields.evidence);
  return null;
}

/** Why `action` cannot settle late money on this kind of payment, or null. */
export function settleLateActionRefusal(kind: ReviewedKind, action: SettleLateAction): string | null {
  if (kind === 'charge' && action === 'accept') return 'a charge is settled with "credit" (the merchant) or "return" (the payer), not "accept"';
  if (kind !== 'charge' && action !== 'accept') return `a ${kind} the partner paid late is settled with "accept" (recorded as paid)`;
  return null;
}

/** The review's state, as the paymentReview query answers it. */
export interface PaymentReviewState {
  paymentId: string;
  product: RailResource;
  /** polling: asking the partner; late_money: waiting for an operator; settled / agreed / open: see reasons. */
  phase: 'polling' | 'late_money' | 'settling' | 'settled' | 'agreed';
  needsAttention: boolean;
  reasons: PaymentReviewFlag[];
  /** The partner's final status, once known. */
  partnerStatus: string | null;
  /** Our record's status when the partner answered. */
  ourStatus: string | null;
  settledAction: SettleLateAction | null;
}
