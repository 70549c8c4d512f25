import type { ChargeRecord } from '../src/domain/charge';
import type { ChargeTransitionRequest } from '../src/domain/charge';
import type { BegunCharge } from '../src/domain/charge-start';
import type { ChargeState } from '../src/domain/charge-state';

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
