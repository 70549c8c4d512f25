import { upsertSearchAttributes } from '@temporalio/workflow';
import type { ChargeState } from '../src/domain/charge-state';
import { chargeSearchAttributePairs, SA } from '../src/domain/search-attributes';

/** Keeps the operator-facing search attributes equal to the charge's current state. */
export function publishChargeState(charge: ChargeState): void {
  upsertSearchAttributes(chargeSearchAttributePairs(charge));
}

/** NeedsAttention: true while the charge waits for an operator to retry a database step. */
export function publishNeedsAttention(value: boolean): void {
  upsertSearchAttributes([{ key: SA.NeedsAttention, value }]);
}
