import type { Environment } from './environment';
import { isFailureClass, type FailureClass } from './failure-classes';
import { COMPLETION_DELAY_MS, PENDING_TIMEOUT_MS } from './sandbox-outcome';
import type { RestartRequest } from './operator-action';
import type { PartnerWaitCarry } from './partner-wait';
import { railOf, type PaymentRail } from './rail-routes';

/**
 * Refunds (INTERFACE.md, "Money movement"): money back to the customer of a succeeded charge, paid
 * from the merchant's available balance (the charge's fees are not returned). The refund workflow
 * owns every transition after acceptance: `pending` → `succeeded` | `failed`.
 */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

export function isTerminalRefundStatus(status: RefundStatus): boolean {
  return status !== 'pending';
}

/**
 * The event of each status. A refund's creation is `refund.created` (the amount is reserved: the
 * merchant's available balance moves, so the event log says so, as `transaction.created` and
 * `payout.initiated` do); each later change of status is one event, `refund.succeeded` or
 * `refund.failed`. At most one of each per refund (their dedupe key is `<refund id>:<type>`).
 */
export type RefundEventType = 'refund.created' | 'refund.succeeded' | 'refund.failed';

export function refundEventType(status: RefundStatus): RefundEventType {
  return status === 'pending' ? 'refund.created' : `refund.${status}`;
}

/** A refund as the system of record holds it: the camelCase of the `refunds` columns. */
export interface RefundRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  chargeId: string;
  status: RefundStatus;
  amount: number;
  currency: string;
  reason: RefundReason | null;
  /** Metadata exactly as the merchant sent it, serialised once (key order kept). */
  metadataJson: string;
  failureClass: FailureClass | null;
  /** `metadata.sandbox_outcome` at acceptance (sandbox only; null on live). */
  sandboxOutcome: string | null;
  createdAt: string;
  updatedAt: string;
  /** The partner it goes back through (its charge's), or `sandbox` (issue 45); absent or null: a row from before (railOf). */
  rail?: PaymentRail | null;
}

/**
 * What the refund workflow holds of a refund, and all that goes into its history (activity results,
 * queries, the run's result): no metadata.
 */
export interface RefundState {
  id: string;
  merchantId: string;
  environment: Environment;
  chargeId: string;
  status: RefundStatus;
  amount: number;
  currency: string;
  failureClass: FailureClass | null;
  updatedAt: string;
}

export function refundState(record: RefundRecord | RefundState): RefundState {
  return {
    id: record.id,
    merchantId: record.merchantId,
    environment: record.environment,
    chargeId: record.chargeId,
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    failureClass: record.failureClass,
    updatedAt: record.updatedAt,
  };
}

/** What the refund workflow's first step returns: the state of the refund the API wrote and its sandbox switch. */
export interface BegunRefund {
  refund: RefundState;
  sandboxOutcome: string | null;
}

/** Input of a refund workflow (the API after its commit, or the refund-start relay): the id only. */
export interface RefundStart {
  refundId: string;
  /** Set by `payments restart` (an operator's new run for a record whose workflow closed unfinished): who, why, and what it found. */
  restart?: RestartRequest;
  /** A live refund's partner wait carried over from the run that continued as new (workflows/refund-rail.ts). */
  resume?: PartnerWaitCarry;
}

/** Workflow type of the refund workflow (workflows/refund.ts). */
export const REFUND_WORKFLOW_TYPE = 'refundWorkflow';
/** Error type of a refund workflow started for a refund that was never written. */
export const REFUND_NOT_FOUND = 'RefundNotFoundError';
/** Error type of a refund workflow refused at its start (workflow id or search attributes not the stored refund's). */
export const REFUND_INPUT_REFUSED = 'RefundInputRefused';
/** Error type of a refund end the status gate refused (a live refund's end without the partner's word; src/persistence/payment-gate.ts). */
export const REFUND_TRANSITION_REFUSED = 'RefundTransitionRefusedError';

/** One requested state change of a refund (from the workflow: `at` is workflow time, so a retry writes the same value). */
export interface RefundTransitionRequest {
  refundId: string;
  to: Exclude<RefundStatus, 'pending'>;
  failureClass: FailureClass | null;
  at: string;
}

/** What the simulated refund rail does with a refund, decided from its own `metadata.sandbox_outcome`. */
export type RefundPlan = { kind: 'succeed'; afterMs: number } | { kind: 'fail'; failureClass: FailureClass } | { kind: 'time_out'; afterMs: number };

/**
 * The sandbox outcome of a refund: absent, `succeed` or anything unrecognised (including
 * `indeterminate`, which has no meaning for a refund) succeeds about three seconds after acceptance;
 * a failure class fails at once with that class; `pending` stays in flight ten minutes, then fails
 * with `timeout`. Live: runs from before the refund rail (LIVE_REFUND_RAIL_PATCH) fail at once; a
 * newer live refund never comes here (workflows/refund-rail.ts).
 */
export function refundPlan(environment: Environment, outcome: unknown): RefundPlan {
  if (environment === 'live') return { kind: 'fail', failureClass: 'partner_unavailable' };
  if (outcome === 'pending') return { kind: 'time_out', afterMs: PENDING_TIMEOUT_MS };
  if (isFailureClass(outcome)) return { kind: 'fail', failureClass: outcome };
  return { kind: 'succeed', afterMs: COMPLETION_DELAY_MS };
}

/** The public refund object (API answers and event data). */
export interface RefundView {
  id: string;
  object: 'refund';
  status: RefundStatus;
  amount: number;
  currency: string;
  charge: string;
  reason: RefundReason | null;
  failure_class?: FailureClass;
  livemode: boolean;
  /** The partner the refund went through (its charge's: `momo`, `aggregator`), or `sandbox` (issue 45). */
  rail: PaymentRail;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
}

export function refundObject(record: RefundRecord): RefundView {
  return {
    id: record.id,
    object: 'refund',
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    charge: record.chargeId,
    reason: record.reason,
    ...(record.status === 'failed' && record.failureClass ? { failure_class: record.failureClass } : {}),
    livemode: record.environment === 'live',
    rail: railOf(record),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    metadata: JSON.parse(record.metadataJson) as Record<string, unknown>,
  };
}

/**
 * The refund object serialised, with the merchant's metadata inserted as the text it was sent in
 * (metadata is the last member). The body of API answers and the `data` of refund events.
 */
export function refundJson(record: RefundRecord): string {
  const { metadata: _ignored, ...rest } = refundObject(record);
  return `${JSON.stringify(rest).slice(0, -1)},"metadata":${record.metadataJson}}`;
}

/** The validated body of POST /v1/refunds. */
export interface RefundRequest {
  charge: string;
  amount?: number;
  reason?: (typeof REFUND_REASONS)[number];
  metadata?: Record<string, unknown>;
}
