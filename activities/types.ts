import type { ChargeRecord } from '../src/domain/charge';
import type { ChargeTransitionRequest } from '../src/domain/charge';
import type { BegunCharge } from '../src/domain/charge-start';
import type { ChargeState } from '../src/domain/charge-state';
import type { BegunRefund, RefundState, RefundTransitionRequest } from '../src/domain/refund';
import type { BegunPayout, PayoutState, PayoutTransitionRequest } from '../src/domain/payout-state';

/** The activity interface workflows import as a type only. */
export interface ChargeActivities {
  /**
   * First step of a run started with `{ chargeId }`: the state of the charge as the API wrote it (with
   * its sandbox outcome; no customer data, it goes into history), its workflow marked started; idempotent. Fails ChargeNotFoundError when there is none.
   */
  beginCharge(chargeId: string): Promise<BegunCharge>;
  /** Runs started by update-with-start: projection row, pending hold and `transaction.created`, in one transaction; idempotent. */
  recordAcceptedCharge(draft: ChargeRecord): Promise<ChargeRecord>;
  /** One state change: projection, ledger and event, in one transaction; idempotent. Answers the state only (it goes into history). */
  applyChargeTransition(request: ChargeTransitionRequest): Promise<ChargeState>;
}

/** The payout workflow's database steps (activities/payouts.ts). Answers hold state only (they go into history). */
export interface PayoutActivities {
  /**
   * First step of a payout run: the payout's state as the API wrote it, its sandbox switch and its
   * review deadline; marks the workflow started; idempotent. Fails PayoutNotFoundError when there is none.
   */
  beginPayout(payoutId: string): Promise<BegunPayout>;
  /** One state change (projection, ledger, balances, event, review) in one transaction; idempotent. */
  payoutTransition(request: PayoutTransitionRequest): Promise<PayoutState>;
}

/** The refund workflow's database steps (activities/refunds.ts). Answers hold state only (they go into history). */
export interface RefundActivities {
  /** First step: the refund's state as the API wrote it and its sandbox switch; marks the workflow started; idempotent. Null when there is no such refund. */
  beginRefund(refundId: string): Promise<BegunRefund | null>;
  /** The terminal transition (projection, charge amount_refunded, ledger, balances, event) in one transaction; idempotent. */
  applyRefundTransition(request: RefundTransitionRequest): Promise<RefundState>;
}

/** One webhook attempt, as the delivery workflow asks for it. */
export interface DeliverWebhookInput {
  deliveryId: string;
  attempt: number;
  /** Workflow time of the attempt (ms): the delivery record and the health rule use it. */
  attemptedAtMs: number;
  /** The jittered schedule delay before the next attempt; null when this is the last one. */
  retryDelayMs: number | null;
}

export interface DeliverWebhookOutcome {
  outcome: 'succeeded' | 'failed' | 'skipped';
  statusCode: number | null;
  /** What the merchant sees as last_failure_reason, or why nothing was sent. */
  reason: string | null;
  /** Wait before the next attempt (Retry-After applied); null when there is none. */
  retryInMs: number | null;
  autoDisabled: boolean;
}

export interface WebhookActivities {
  /**
   * Sends one attempt (unless the endpoint is disabled or deleted, or this attempt is already
   * recorded) and records it with the endpoint's health, in one transaction.
   */
  deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookOutcome>;
}
