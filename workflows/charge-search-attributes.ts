import { upsertSearchAttributes } from '@temporalio/workflow';
import type { ChargeRecord } from '../src/domain/charge';
import { chargeSearchAttributePairs } from '../src/domain/search-attributes';

/** Keeps the operator-facing search attributes equal to the charge's current state. */
export function publishChargeState(charge: ChargeRecord): void {
  upsertSearchAttributes(chargeSearchAttributePairs(charge));
}
