import type { FailoverResult } from '../src/domain/rail-failover';
import type { CardWindow } from '../src/domain/live-card';
import type { RailStepRequest } from '../src/domain/live-rail';
import type { RailStatus, RailSubmitResult } from '../src/rail/partner-rail';
import type { ChargeRecord } from '../src/domain/charge';
import type { ChargeTransitionRequest } from '../src/domain/charge';
import type { BegunCharge } from '../src/domain/charge-start';
import type { ChargeState } from '../src/domain/charge-state';
import type { BegunRefund, RefundState, RefundTransitionRequest } from '../src/domain/refund';
import type { BegunDispute, DisputeEvidenceRequest, DisputeOutcomeRequest, DisputeState } from '../src/domain/dispute';
import type { BegunPayout, PayoutState, PayoutTransitionRequest } from '../src/domain/payout-state';
import type { SettlementOutcome, SettlementState, SettlementSweepRequest, SettlementTransitionRequest } from '../src/domain/settlement';
import type { SettlementRunPage, SettlementRunPageRequest } from '../src/domain/settlement-run';
import type { SettlementRetryFacts } from '../src/domain/settlement-retry';
import type { RetentionBatchRequest, RetentionBatchResult, RetentionPlan } from '../src/domain/retention';
import type { OperatorAuditEntry } from '../src/domain/operator-action';
import type { RecoveryPageRequest, RecoveryPageResult } from '../src/domain/webhook-recovery';
import type { FifoNext } from '../src/domain/webhook-fifo';

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
  /**
   * A live card charge (issue 45): the hosted page's submission, read; with `close` (at expires_at)
   * the card window is closed first unless the page claimed the charge (src/persistence/charges/card-submission-store.ts).
   * Nothing of the card goes into the answer.
   */
  readCardWindow(request: { chargeId: string; close: boolean }): Promise<CardWindow>;
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

/** The dispute workflow's database steps (activities/disputes.ts). Answers hold state only (they go into history: no evidence text). */
export interface DisputeActivities {
  /**
   * First step: the dispute's state as the API wrote it, its workflow marked started and, the first
   * time, `evidence_due_by` set (created_at + DISPUTE_EVIDENCE_WINDOW) with `dispute.evidence_required`;
   * idempotent. Null when there is no such dispute.
   */
  beginDispute(disputeId: string): Promise<BegunDispute | null>;
  /** The evidence (`under_review`, the text and when), in one transaction; idempotent. No event, no money. */
  recordDisputeEvidence(request: DisputeEvidenceRequest): Promise<DisputeState>;
  /** The end (`won`: release the hold; `lost`: debit it), projection, ledger, balances, event, in one transaction; idempotent. */
  applyDisputeOutcome(request: DisputeOutcomeRequest): Promise<DisputeState>;
}

/** The settlement batch workflow's database steps (activities/settlements.ts). Answers hold state only (they go into history). */
export interface SettlementActivities {
  /**
   * The sweep, in one transaction: under the available balance row's lock, the batch row, the
   * swept postings marked, the sweep transfer (available -> reserved) and `settlement.created`; or
   * nothing (`{ kind: 'nothing', reason }`: no settlement account, no positive balance). A batch
   * already written under the id is returned as it is; idempotent.
   */
  sweepSettlement(request: SettlementSweepRequest): Promise<SettlementOutcome>;
  /** The batch's end (`paid`: post to settlement_clearing; `failed`: release to available), with its event, in one transaction; idempotent. */
  applySettlementTransition(request: SettlementTransitionRequest): Promise<SettlementState>;
  /** The batch's stored status (null: no batch): a failed batch's run checks it before a settlementSettledLate signal ends its wait. */
  settlementStatus(settlementId: string): Promise<string | null>;
  /** What a failed batch's retry must know first (issue 43): its partner reference, late money recorded, the partner's SUCCESSFUL on record. */
  settlementRetryFacts(settlementId: string): Promise<SettlementRetryFacts>;
}

/** The settlement run's database step (activities/settlement-runs.ts). */
export interface SettlementRunActivities {
  /**
   * One page of settleable balances after `request.after`, in one transaction: the skips of merchants
   * without a settlement account recorded (and logged), earlier skips of the balances to settle
   * forgotten. Answers balance keys only; idempotent.
   */
  settlementRunPage(request: SettlementRunPageRequest): Promise<SettlementRunPage>;
}

/** The retention workflow's steps (activities/retention.ts). */
export interface RetentionActivities {
  /** The windows, batch size and pause of this worker's settings (src/runtime/retention-settings.ts). */
  retentionPlan(): Promise<RetentionPlan>;
  /** One statement: at most `request.batch` rows of `request.kind` past `request.windowMs`, with their attempts. */
  deleteRetentionBatch(request: RetentionBatchRequest): Promise<RetentionBatchResult>;
}

/** One webhook attempt, as the delivery workflow asks for it. */
export interface DeliverWebhookInput {
  deliveryId: string;
  attempt: number;
  /** Workflow time of the attempt (ms): the delivery record and the health rule use it. */
  attemptedAtMs: number;
  /** The jittered schedule delay before the next attempt; null when this is the last one. */
  retryDelayMs: number | null;
  /**
   * The delivery's merchant and environment (issue 19; absent in runs started before): the attempt
   * takes its merchant's send slot before it reads the database, so an attempt deferred for a busy
   * merchant has used none of the webhook connections the other merchants need.
   */
  merchantId?: string;
  environment?: 'sandbox' | 'live';
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

/** One FIFO delivery's attempt as the workflow plans it (activities/deliver-in-turn.ts). */
export interface InTurnAttempt {
  deliveryId: string;
  attempt: number;
  /** The jittered schedule delay before its next attempt, should it fail. */
  retryDelayMs: number;
}

export interface DeliverInTurnInput {
  merchantId: string;
  environment: 'sandbox' | 'live';
  /** In the endpoint's sequence order; sent one after another, each once the one before it was answered. */
  attempts: InTurnAttempt[];
  /** Workflow time when scheduled: no attempt is stamped earlier. */
  scheduledAtMs: number;
}

export interface DeliverInTurnResult {
  /** One per attempt made, in order; the last one may be a failure to retry (it holds the queue). */
  outcomes: DeliverWebhookOutcome[];
  /** Why it ended: all sent, a failure to retry, the execution's time budget, or an attempt deferred (`reason`). */
  stopped: 'all' | 'failed' | 'budget' | 'deferred';
  reason?: string;
}

/** A FIFO endpoint's sends, one after another in one execution (activities/deliver-in-turn.ts, issue 49). */
export interface WebhookInTurnActivities {
  deliverWebhooksInTurn(input: DeliverInTurnInput): Promise<DeliverInTurnResult>;
}

/** The FIFO workflow's read of its endpoint's queue (activities/webhook-fifo.ts, issue 49). */
export interface WebhookFifoActivities {
  /** The endpoint's delivery_order now (or 'deleted') and the first `limit` deliveries waiting in its queue, in sequence order. */
  nextFifoDeliveries(request: { endpointId: string; environment: 'sandbox' | 'live'; limit: number }): Promise<FifoNext>;
}

/** The webhook recovery workflow's step (activities/webhook-recovery.ts, issue 49). */
export interface WebhookRecoveryActivities {
  /**
   * One page of a recovery: its resends inserted with the recovery's progress in one transaction, then
   * their delivery workflows started. Safe to repeat: a page committed before answers its range again
   * and starts what is still unstarted, inserting nothing twice.
   */
  recoverWebhookPage(request: RecoveryPageRequest): Promise<RecoveryPageResult>;
}

/** The audit step of every operator action (activities/operator-audit.ts). */
export interface OperatorAuditActivities {
  /** One operator_audit row; a second call for the same payment and request writes nothing (false). */
  recordOperatorAction(entry: OperatorAuditEntry): Promise<boolean>;
}

/** A submission's answer, or `no_rail`: this worker has no partner rail (the payment fails with partner_unavailable). */
export type RailSubmitOutcome =
  | RailSubmitResult
  | { kind: 'no_rail' }
  /**
   * Issue 46, only for a submission asked with `failover`: the request never reached the partner
   * (RailUnavailable.notReached; counted on the reference). Without `failover` such a submission is
   * retried by Temporal as before.
   */
  | { kind: 'not_reached'; reason: string };

/** The partner's status as the activity read it, with how a final answer's amount or currency differ from ours (none: they match, or the partner gave none). */
export type RailStatusAnswer = RailStatus & { mismatch?: string };

/** The live partner rail's steps (activities/rail.ts). */
export interface RailActivities {
  railSubmit(request: RailStepRequest): Promise<RailSubmitOutcome>;
  railStatus(request: RailStepRequest): Promise<RailStatusAnswer>;
  /** Issue 46: the failover gate (src/persistence/partner/rail-failover-store.ts). */
  railFailover(request: RailStepRequest): Promise<FailoverResult>;
}
