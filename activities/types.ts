import type { ChargeRecord } from '../src/domain/charge';
import type { ChargeTransitionRequest } from '../src/domain/charge';

/** The activity interface workflows import as a type only. */
export interface ChargeActivities {
  /** Projection row, pending hold and `transaction.created`, in one transaction; idempotent. */
  recordAcceptedCharge(draft: ChargeRecord): Promise<ChargeRecord>;
  /** One state change: projection, ledger and event, in one transaction; idempotent. */
  applyChargeTransition(request: ChargeTransitionRequest): Promise<ChargeRecord>;
}
