import { MAX_REASON_LENGTH } from './charge-attention';
import { MAX_SENDER_LENGTH, UNNAMED_SENDER } from './payout-review';
import type { SettlementState } from './settlement';
import { operatorRefusal } from './operator-action';
import { plainTextProblem } from './plain-text';

/**
 * An operator's retry of a failed settlement batch (`settlements retry stl_… --reason TEXT`, or the
 * `retrySettlement` update from the Temporal UI with `{"operator":"…","reason":"…"}`). A failed batch's workflow
 * stays open, NeedsAttention, until one arrives; the retry starts a new batch for the same merchant,
 * environment and currency (which sweeps whatever is available then, the released money included),
 * clears NeedsAttention, and the failed batch's workflow ends with `retried_as`.
 */
export interface RetrySettlementRequest {
  reason: string;
  /** Who asks (required: `operator`, or its older name `by`; `cli:<login>` from the command line). */
  operator?: string;
  by?: string;
  batch_id?: string;
}

/** Who retried a failed batch, why and when (workflow time), as the workflow records it. */
export interface SettlementRetry {
  reason: string;
  by: string;
  at: string;
}

/** The answer of `retrySettlement`: the failed batch, and the new batch started for it. */
export interface RetrySettlementResult {
  id: string;
  status: 'failed';
  retried_as: string;
  retry: SettlementRetry;
}

/** What the workflow of a failed batch ends with once retried: its state, the new batch, and who/why. */
export type RetriedSettlement = SettlementState & { retried_as: string; retry: SettlementRetry };

/** Who sent a retry when the request does not say. */
export const RETRY_UNNAMED_SENDER = UNNAMED_SENDER;

/** Error type of a retry the workflow refuses in its handler (the validator refuses the others as plain errors). */
export const SETTLEMENT_RETRY_REFUSED = 'SettlementRetryRefused';

/** Why a retrySettlement input is refused (its shape only), or null. */
export function retryRequestRefusal(request: unknown): string | null {
  if (typeof request !== 'object' || request === null) return 'retrySettlement takes {"reason":"…"}';
  const { reason, by } = request as Record<string, unknown>;
  if (typeof reason !== 'string' || reason.trim() === '') return 'a non-empty "reason" is required';
  if (reason.length > MAX_REASON_LENGTH) return `"reason" is longer than ${MAX_REASON_LENGTH} characters`;
  if (by !== undefined && (typeof by !== 'string' || by.trim() === '' || by.length > MAX_SENDER_LENGTH)) {
    return `"by", when sent, is a non-empty string of at most ${MAX_SENDER_LENGTH} characters`;
  }
  // The shared rule (plain text on one line, no engine name) for reason, operator and `by` alike.
  return operatorRefusal(request, RETRY_SENDER_ALIASES) ?? (by === undefined ? null : plainTextProblem('"by"', by as string));
}

/** Older name of the `operator` field of retrySettlement. */
export const RETRY_SENDER_ALIASES = ['by'] as const;

/** The batch's own state that refuses a retry (a batch not failed, or one already retried), or null. */
export function retryStateRefusal(settlementId: string, batch: Pick<SettlementState, 'status'> | undefined, retriedAs: string | undefined, retrying: boolean): string | null {
  if (retriedAs) return `settlement ${settlementId} was already retried as ${retriedAs}`;
  if (retrying) return `settlement ${settlementId}: a retry is already under way`;
  if (!batch) return `settlement ${settlementId} has not swept yet: only a failed batch can be retried`;
  if (batch.status !== 'failed') return `settlement ${settlementId} is ${batch.status}: only a failed batch can be retried`;
  return null;
}

/**
 * Why a failed live batch is not retried after asking the partner, or null: only the partner's
 * FAILED, or its `unknown` (it never received the transfer), lets the money go out again. Asked for
 * every live batch with a partner reference since issue 43 (before: only one failed with `timeout`).
 */
export function retryPartnerRefusal(settlementId: string, status: 'pending' | 'succeeded' | 'failed' | 'unknown' | undefined): string | null {
  if (status === 'failed' || status === 'unknown') return null;
  if (status === 'succeeded') {
    return `settlement ${settlementId}: the partner says this batch was paid (SUCCESSFUL): it is not retried, which would pay it twice. Its payment review records the late money; settle it with ${settleLateCommand(settlementId)}`;
  }
  const said = status === 'pending' ? 'the partner says it is still pending' : 'the partner did not answer';
  return `settlement ${settlementId}: ${said}, so its transfer may still be paid: it is not retried until the partner gives a final answer. Nothing changed`;
}

/** What a failed batch's retry reads before it sends the money again (issue 43, finding 4). */
export interface SettlementRetryFacts {
  /** The batch has a partner reference: its transfer may have reached the partner. */
  hasReference: boolean;
  /** Late money recorded for the batch (the partner paid it after all), and how it was settled (null: not yet). */
  lateAnswer: { settledAction: string | null } | null;
  /** The partner's SUCCESSFUL for the batch is on record (rail_answers). */
  partnerSucceeded: boolean;
  /**
   * Another failed batch of the same balance the partner paid after all, its late money not settled
   * (absent in answers recorded before the field: those decide without it).
   */
  otherLatePaid?: string | null;
}

/** The settle-late command of a batch the partner paid after all. */
export function settleLateCommand(settlementId: string): string {
  return `payments settle-late ${settlementId} --action accept --reason TEXT`;
}

/**
 * Why a failed live batch is not retried on what our records hold, or null (issue 43, finding 4): the
 * partner paid it after all (its late money recorded, or its SUCCESSFUL on record). Sending it again
 * would pay the merchant twice; its payment review settles it (settle-late accept).
 */
export function retryRecordRefusal(settlementId: string, facts: SettlementRetryFacts): string | null {
  if (facts.lateAnswer) {
    const settled = facts.lateAnswer.settledAction ? ` (already settled with "${facts.lateAnswer.settledAction}")` : `: settle it with ${settleLateCommand(settlementId)}`;
    return `settlement ${settlementId}: the partner paid this batch after all (late SUCCESSFUL recorded): it is not retried, which would pay it twice${settled}. Nothing changed`;
  }
  if (facts.partnerSucceeded) {
    return `settlement ${settlementId}: the partner's SUCCESSFUL for this batch is on record: it is not retried, which would pay it twice. Its payment review records the late money; settle it with ${settleLateCommand(settlementId)}. Nothing changed`;
  }
  if (facts.otherLatePaid) {
    return `settlement ${settlementId}: batch ${facts.otherLatePaid} of the same balance failed, but the partner paid it after all: no batch of this balance is retried until its late money is settled (the new batch would sweep that money again): ${settleLateCommand(facts.otherLatePaid)}. Nothing changed`;
  }
  return null;
}

/** The command an operator runs (shown in NeedsAttention reasons and the workflow's current details). */
export function retryCommand(settlementId: string): string {
  return `settlements retry ${settlementId} --reason TEXT`;
}
