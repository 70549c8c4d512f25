import type { ChargeState } from '../src/domain/charge-state';
import { applyTransition } from './charge-activities';
import { publishChargeState } from './charge-search-attributes';

export interface ChargeReversalInput {
  chargeId: string;
  /** ISO time the operator asked for the reversal. */
  requestedAt: string;
}

/**
 * An operator's reversal of a succeeded charge. It runs as a new run under the charge's own
 * workflow id (`txn_…`), so the Temporal UI shows the whole life of a charge in one place. The
 * transition posts reversing ledger entries and `transaction.reversed`; history is never edited.
 */
export async function chargeReversalWorkflow(input: ChargeReversalInput): Promise<ChargeState> {
  const charge = await applyTransition({ chargeId: input.chargeId, to: 'reversed', failureClass: null, at: input.requestedAt });
  publishChargeState(charge);
  return charge;
}
