import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PayoutState } from '../src/domain/payout-state';
import { payoutSearchAttributePairs } from '../src/domain/payout-search-attributes';
import { needsAttentionPairs } from '../src/domain/attention-reason';

/**
 * Keeps the operator-facing search attributes equal to the payout's current state (PaymentStatus,
 * FailureClass, …; the same list as at the start) and NeedsAttention: true while the payout waits for
 * an operator (held for review, or unresolved past its expected time), with NeedsAttentionReason
 * (`attentionReason`; `HELD_FOR_REVIEW_REASON` for a review), unset when it clears.
 */
export function publishPayoutState(payout: PayoutState, reason: string | null): void {
  upsertSearchAttributes([...payoutSearchAttributePairs(payout), ...needsAttentionPairs(reason)]);
}

/** What the workflow waits for now, shown as the run's current details in the Temporal UI. */
export function describeWait(details: string): void {
  setCurrentDetails(details);
}
