import type { Environment } from './environment';
import type { FailureClass } from './failure-classes';
import type { PayoutChannel, PayoutRecord, PayoutReview, PayoutStatus } from './payout';
import type { PayoutStart } from './payout-start';
import type { AuditOfChange } from './operator-action';
import { partnerWaitCarryProblem } from './partner-wait';

export type { PayoutStart } from './payout-start';

/** The input is `{ payoutId }`, with a well-formed `resume` when the workflow continued itself (a run started by hand with anything else refuses to run). */
export function isPayoutStart(input: unknown): input is PayoutStart {
  if (typeof input !== 'object' || input === null || typeof (input as Partial<PayoutStart>).payoutId !== 'string') return false;
  const { resume } = input as Partial<PayoutStart>;
  return resume === undefined || partnerWaitCarryProblem(resume) === null;
}

/**
 * What the payout workflow keeps of a payout (its history holds this, nothing more): no recipient
 * identifier or name, no description, no metadata. The review's reason and sender are operator
 * data, kept so the Temporal UI shows the decision.
 */
export interface PayoutState {
  id: string;
  merchantId: string;
  environment: Environment;
  status: PayoutStatus;
  amount: number;
  currency: string;
  channel: PayoutChannel;
  totalDebit: number;
  failureClass: FailureClass | null;
  review: PayoutReview | null;
  createdAt: string;
  updatedAt: string;
}

export function payoutState(record: PayoutRecord): PayoutState {
  return {
    id: record.id,
    merchantId: record.merchantId,
    environment: record.environment,
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    channel: record.channel,
    totalDebit: record.totalDebit,
    failureClass: record.failureClass,
    review:
      record.reviewDecision && record.reviewReason !== null && record.reviewDecidedAt
        ? { decision: record.reviewDecision, reason: record.reviewReason, decidedBy: record.reviewDecidedBy ?? 'unknown', decidedAt: record.reviewDecidedAt }
        : null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/**
 * What the payout workflow's first step returns: the payout's state as the API wrote it, its sandbox
 * switch, and when an unanswered review times out (created_at + PAYOUT_REVIEW_TIMEOUT, ISO; null
 * unless held for review). All of it in history, so every timer the workflow starts is deterministic.
 */
export interface BegunPayout {
  payout: PayoutState;
  sandboxOutcome: string | null;
  reviewDeadline: string | null;
}

/** One payout state change, as the workflow asks for it (activities/payouts.ts payoutTransition). */
export interface PayoutTransitionRequest {
  payoutId: string;
  to: PayoutStatus;
  failureClass?: FailureClass;
  review?: PayoutReview;
  /** Workflow time of the transition (ISO): a retry writes the same value. */
  at: string;
  /** An operator's decision or reversal: its audit row, written in the transition's transaction when it changes the payout (issue 31). */
  audit?: AuditOfChange;
}

/** Error type of a payout workflow started for a payout that was never written. */
export const PAYOUT_NOT_FOUND = 'PayoutNotFoundError';
/** Error type of a payout transition the payout's rules refuse (e.g. failed -> succeeded). */
export const PAYOUT_TRANSITION_REFUSED = 'PayoutTransitionRefusedError';
/**
 * Error type of a payout workflow refused at its start: a workflow id other than the payout id, an
 * input other than `{ payoutId }`, or search attributes naming another merchant or environment than
 * the stored payout.
 */
export const PAYOUT_INPUT_REFUSED = 'PayoutInputRefused';
/** Error type of a decidePayout / reversePayout update refused once accepted (the payout was not in the state it needs). */
export const PAYOUT_REQUEST_REFUSED = 'PayoutRequestRefused';
