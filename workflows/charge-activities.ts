import { proxyLocalActivities, type LocalActivityOptions } from '@temporalio/workflow';
import type { ChargeActivities } from '../activities/types';
import type { ChargeRecord } from '../src/domain/charge';
import type { ChargeTransitionRequest } from '../src/domain/charge';

/**
 * Database steps run as local activities: one short transaction each, no extra round trip through
 * the server. They are idempotent, so a retry after a worker crash writes nothing twice.
 */
const OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '10 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: ['TransitionRefusedError', 'ChargeNotFoundError'],
  },
};

const db = proxyLocalActivities<ChargeActivities>(OPTIONS);

export function recordAccepted(draft: ChargeRecord): Promise<ChargeRecord> {
  return db.recordAcceptedCharge.executeWithOptions(
    { ...OPTIONS, summary: 'record charge: projection, pending hold, transaction.created' },
    [draft],
  );
}

export function applyTransition(request: ChargeTransitionRequest): Promise<ChargeRecord> {
  const what = request.failureClass ? `${request.to} (${request.failureClass})` : request.to;
  return db.applyChargeTransition.executeWithOptions({ ...OPTIONS, summary: `charge -> ${what}: projection, ledger, event` }, [request]);
}
