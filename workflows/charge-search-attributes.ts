import { upsertSearchAttributes } from '@temporalio/workflow';
import type { ChargeState } from '../src/domain/charge-state';
import { needsAttentionPairs } from '../src/domain/attention-reason';
import { chargeSearchAttributePairs } from '../src/domain/search-attributes';

/** Keeps the operator-facing search attributes equal to the charge's current state. */
export function publishChargeState(charge: ChargeState): void {
  upsertSearchAttributes(chargeSearchAttributePairs(charge));
}

/**
 * NeedsAttention: true while the payment waits for an operator (a database step gave up, an activity
 * keeps failing, a partner's answer is overdue), with NeedsAttentionReason (`attentionReason`); the
 * reason is unset when it clears.
 */
export function publishNeedsAttention(value: true, reason: string): void;
export function publishNeedsAttention(value: false): void;
export function publishNeedsAttention(value: boolean, reason?: string): void {
  upsertSearchAttributes(needsAttentionPairs(value ? reason! : null));
}
