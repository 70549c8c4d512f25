import type { Environment } from './environment';
import type { RestartRequest } from './operator-action';

/**
 * Disputes (INTERFACE.md "Money movement", "Sandbox controls"): a cardholder's chargeback of a
 * succeeded charge. Opening holds the disputed amount (available → reserved); the dispute workflow
 * owns every later transition: `needs_response` → `under_review` (evidence submitted) → `won`
 * (the hold is released) | `lost` (the hold is debited to dispute_clearing); a missed evidence
 * deadline goes from `needs_response` straight to `lost`.
 */
export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** A dispute is open (it holds its amount, and no other may be opened on its charge) until won or lost. */
export const OPEN_DISPUTE_STATUSES = ['needs_response', 'under_review'] as const satisfies readonly DisputeStatus[];

export function isOpenDisputeStatus(status: DisputeStatus): boolean {
  return (OPEN_DISPUTE_STATUSES as readonly DisputeStatus[]).includes(status);
}

/**
 * Why the cardholder disputes (a small subset of the card networks' reason codes, Stripe's names).
 * `general` when the opening does not say.
 */
export const DISPUTE_REASONS = ['fraudulent', 'product_not_received', 'product_unacceptable', 'duplicate', 'credit_not_processed', 'general'] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];
export const DEFAULT_DISPUTE_REASON: DisputeReason = 'general';

/**
 * The event of each change. Opening is `dispute.opened` (the hold); the evidence window opening is
 * `dispute.evidence_required` (with `evidence_due_by`); the end is `dispute.won` or `dispute.lost`.
 * Evidence submitted (`under_review`) has no event of its own: SPEC 6.5 names these four. At most one
 * of each per dispute (their dedupe key is `<dispute id>:<type>`).
 */
export type DisputeEventType = 'dispute.opened' | 'dispute.evidence_required' | 'dispute.won' | 'dispute.lost';

/** A dispute as the system of record holds it: the camelCase of the `disputes` columns. */
export interface DisputeRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  chargeId: string;
  status: DisputeStatus;
  amount: number;
  currency: string;
  reason: DisputeReason;
  /** The merchant's evidence, as sent (null until submitted). */
  evidenceText: string | null;
  evidenceSubmittedAt: string | null;
  /** Set by the dispute workflow's first step: created_at + DISPUTE_EVIDENCE_WINDOW (null before). */
  evidenceDueBy: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * What the dispute workflow holds of a dispute, and all that goes into its history (activity
 * results, queries, the run's result): no evidence text.
 */
export interface DisputeState {
  id: string;
  merchantId: string;
  environment: Environment;
  chargeId: string;
  status: DisputeStatus;
  amount: number;
  currency: string;
  evidenceDueBy: string | null;
  evidenceSubmittedAt: string | null;
  updatedAt: string;
}

export function disputeState(record: DisputeRecord | DisputeState): DisputeState {
  return {
    id: record.id,
    merchantId: record.merchantId,
    environment: record.environment,
    chargeId: record.chargeId,
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    evidenceDueBy: record.evidenceDueBy,
    evidenceSubmittedAt: record.evidenceSubmittedAt,
    updatedAt: record.updatedAt,
  };
}

/**
 * What the dispute workflow's first step returns: the dispute's state with its evidence deadline set,
 * and, for a dispute already under review (a run started again), the sandbox decision its stored
 * evidence gets (null otherwise), so the evidence text itself stays out of the history.
 */
export interface BegunDispute {
  dispute: DisputeState;
  decision: DisputeOutcome | null;
}

/** Input of a dispute workflow (the API after its commit, or the dispute-start relay): the id only. */
export interface DisputeStart {
  disputeId: string;
  /** Set by `payments restart` (an operator's new run for a record whose workflow closed unfinished): who, why, and what it found. */
  restart?: RestartRequest;
}

/** Workflow type of the dispute workflow (workflows/dispute.ts). */
export const DISPUTE_WORKFLOW_TYPE = 'disputeWorkflow';
/** Error type of a dispute workflow started for a dispute that was never written. */
export const DISPUTE_NOT_FOUND = 'DisputeNotFoundError';
/** Error type of a dispute workflow refused at its start (workflow id or search attributes not the stored dispute's). */
export const DISPUTE_INPUT_REFUSED = 'DisputeInputRefused';
/** Error type of a `submitEvidence` update refused by the dispute's rules (second time, after the deadline, resolved). */
export const EVIDENCE_NOT_ACCEPTED = 'EvidenceNotAccepted';

/** How a dispute ends. */
export type DisputeOutcome = 'won' | 'lost';

/** The evidence, recorded by the `submitEvidence` update (`at` is workflow time, so a retry writes the same value). */
export interface DisputeEvidenceRequest {
  disputeId: string;
  text: string;
  at: string;
}

/** The end of a dispute (from the workflow: `at` is workflow time). */
export interface DisputeOutcomeRequest {
  disputeId: string;
  to: DisputeOutcome;
  at: string;
}

/** The public dispute object (API answers and event data). */
export interface DisputeView {
  id: string;
  object: 'dispute';
  status: DisputeStatus;
  amount: number;
  currency: string;
  charge: string;
  reason: DisputeReason;
  evidence_due_by: string | null;
  evidence: { text: string; submitted_at: string } | null;
  livemode: boolean;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
}

export function disputeObject(record: DisputeRecord): DisputeView {
  return {
    id: record.id,
    object: 'dispute',
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    charge: record.chargeId,
    reason: record.reason,
    evidence_due_by: record.evidenceDueBy,
    evidence: record.evidenceText !== null && record.evidenceSubmittedAt !== null ? { text: record.evidenceText, submitted_at: record.evidenceSubmittedAt } : null,
    livemode: record.environment === 'live',
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    // A dispute is opened by the cardholder's bank, not the merchant: it carries no metadata of its own.
    metadata: {},
  };
}

/** The dispute object serialised: the body of API answers and the `data` of dispute events. */
export function disputeJson(record: DisputeRecord): string {
  return JSON.stringify(disputeObject(record));
}

/** The validated body of POST /v1/sandbox/charges/{id}/disputes. */
export interface OpenDisputeRequest {
  reason?: DisputeReason;
  amount?: number;
}
