/**
 * NeedsAttentionReason (issue 31): why a workflow marked NeedsAttention waits for an operator, in a
 * few words a saved view of the Temporal UI shows as a column (docs/operations.md, "The stuck list in
 * the Temporal UI"). A kind and a code-defined step only, never an id, an amount or personal data:
 * the whole reason is in `payments stuck`, the workflow's queries and its current details. Set with
 * NeedsAttention in the same upsert, and cleared (unset) whenever NeedsAttention is cleared.
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { SA } from './search-attributes';

export const NEEDS_ATTENTION_REASON_MAX = 100;

/** A payout held for review waits for an operator's decision: the normal flow, not trouble. */
export const HELD_FOR_REVIEW_REASON = 'held for review';

export type AttentionKind =
  /** A database step's bounded retries ran out: `retryStep`. */
  | 'step gave up'
  /** An activity keeps failing past ACTIVITY_ATTENTION_ATTEMPTS (still retried by the worker). */
  | 'activity failing'
  /** Waiting for someone else's answer (the partner): no retry to send. */
  | 'waiting'
  /** A payment review (issue 29), by phase. */
  | 'payment review'
  /** A failed settlement batch: `settlements retry`. */
  | 'settlement failed';

/** `kind: step`, one line of printable text, at most NEEDS_ATTENTION_REASON_MAX characters. */
export function attentionReason(kind: AttentionKind, step?: string): string {
  const text = step ? `${kind}: ${step}` : kind;
  return text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim().slice(0, NEEDS_ATTENTION_REASON_MAX);
}

/** NeedsAttention and its reason, for one upsert: set with `reason`, or (null) cleared, the reason unset. */
export function needsAttentionPairs(reason: string | null): SearchAttributeUpdatePair[] {
  return [
    { key: SA.NeedsAttention, value: reason !== null },
    { key: SA.NeedsAttentionReason, value: reason },
  ];
}
