import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PayoutState } from '../src/domain/payout-state';
import { payoutSearchAttributePairs } from '../src/domain/payout-search-attributes';
import { SA } from '../src/domain/search-attributes';

/**
 * Keeps the operator-facing search attributes equal to the payout's current state (PaymentStatus,
 * FailureClass, …; the same list as at the start) and NeedsAttention: true while the payout waits for
 * an operator (held for review, or unresolved past its expected time).
 */
export function publishPayoutState(payout: PayoutState, needsAttention: boolean): void {
  upsertSearchAttributes([...payoutSearchAttributePairs(payout), { key: SA.NeedsAttention, value: needsAttention }]);
}

/** What the workflow waits for now, shown as the run's current details in the Temporal UI. */
export function describeWait(details: string): void {
  setCurrentDetails(details);
}
