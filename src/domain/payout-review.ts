import { MAX_REASON_LENGTH } from './charge-attention';
import { parseDuration } from './webhook-retry';
import { operatorRefusal } from './operator-action';
import { plainTextProblem } from './plain-text';

/**
 * `patched()` id (issue 43, "terminate or reset strands or releases money"): a review decision the
 * store refuses because the payout is no longer held for review (a reset that did not reapply the
 * operator's update replays the review, times it out past its deadline and rejects it as `system`;
 * the compare-and-set refuses `pending -> failed`) no longer fails the run with the money reserved and
 * nothing following the partner: the run reads the payout again and goes on from its status, flagged
 * (NeedsAttention `waiting: review decision refused`) until the partner's word ends it. Decided at a
 * payout run's start (workflows/patches-at-start.ts: it is asked right after a local activity); runs
 * from before failed on the refusal, and replay so.
 */
export const REVIEW_DECISION_REFUSED_PATCH = 'review-decision-refused-goes-on';

/** PAYOUT_REVIEW_TIMEOUT when unset: a held payout with no decision within 72 hours fails (`declined`). */
export const DEFAULT_PAYOUT_REVIEW_TIMEOUT_MS = 72 * 3_600_000;

/** PAYOUT_REVIEW_TIMEOUT (`72h`, `30m`, …), read by the worker's beginPayout step. */
export function payoutReviewTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PAYOUT_REVIEW_TIMEOUT;
  if (!raw) return DEFAULT_PAYOUT_REVIEW_TIMEOUT_MS;
  const ms = parseDuration(raw);
  if (ms <= 0) throw new Error(`PAYOUT_REVIEW_TIMEOUT must be a positive duration, got "${raw}"`);
  return ms;
}

/**
 * Input of the `decidePayout` update (`payouts approve|reject po_… --reason TEXT`, or the Temporal
 * UI with `{"decision":"approve","operator":"jane","reason":"…"}`). The operator is required (the
 * audit log, src/domain/operator-action.ts); `decided_by` is its older name.
 */
export interface PayoutDecisionRequest {
  decision: 'approve' | 'reject';
  reason: string;
  /** Who decides (required: `operator`, or its older name `decided_by`). */
  operator?: string;
  decided_by?: string;
  batch_id?: string;
}

/** Older names of the `operator` field of decidePayout and reversePayout. */
export const DECISION_SENDER_ALIASES = ['decided_by'] as const;
export const REVERSAL_SENDER_ALIASES = ['requested_by'] as const;

/** Input of the `reversePayout` update (`payouts reverse po_… --reason TEXT`, or the Temporal UI). */
export interface PayoutReversalRequest {
  reason: string;
  operator?: string;
  requested_by?: string;
  batch_id?: string;
}

/** Who sent an update when it does not say: the Temporal UI (or any other client). */
export const UNNAMED_SENDER = 'temporal-ui';
/** Who decided when nobody did within PAYOUT_REVIEW_TIMEOUT. */
export const REVIEW_TIMEOUT_SENDER = 'system';
/** Longest `decided_by` / `requested_by` kept. */
export const MAX_SENDER_LENGTH = 100;

function reasonRefusal(reason: unknown): string | null {
  if (typeof reason !== 'string' || reason.trim() === '') return 'a non-empty "reason" is required';
  if (reason.length > MAX_REASON_LENGTH) return `"reason" is longer than ${MAX_REASON_LENGTH} characters`;
  return plainTextProblem('"reason"', reason);
}

function senderRefusal(name: string, sender: unknown): string | null {
  if (sender === undefined) return null;
  if (typeof sender !== 'string' || sender.trim() === '' || sender.length > MAX_SENDER_LENGTH) {
    return `"${name}", when sent, is a non-empty string of at most ${MAX_SENDER_LENGTH} characters`;
  }
  return plainTextProblem(`"${name}"`, sender);
}

/** Why a decidePayout input is refused (its shape only), or null. */
export function decisionRequestRefusal(request: unknown): string | null {
  if (typeof request !== 'object' || request === null) return 'decidePayout takes {"decision":"approve"|"reject","reason":"…"}';
  const { decision, reason, decided_by } = request as Record<string, unknown>;
  if (decision !== 'approve' && decision !== 'reject') return '"decision" must be "approve" or "reject"';
  return reasonRefusal(reason) ?? senderRefusal('decided_by', decided_by) ?? operatorRefusal(request, DECISION_SENDER_ALIASES);
}

/** Why a reversePayout input is refused (its shape only), or null. */
export function reversalRequestRefusal(request: unknown): string | null {
  if (typeof request !== 'object' || request === null) return 'reversePayout takes {"reason":"…"}';
  const { reason, requested_by } = request as Record<string, unknown>;
  return reasonRefusal(reason) ?? senderRefusal('requested_by', requested_by) ?? operatorRefusal(request, REVERSAL_SENDER_ALIASES);
}
