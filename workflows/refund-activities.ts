import { proxyLocalActivities, type LocalActivityOptions } from '@temporalio/workflow';
import type { RefundActivities } from '../activities/types';
import { DB_STEP_RETRY } from '../src/domain/charge-attention';
import type { BegunRefund, RefundState, RefundTransitionRequest } from '../src/domain/refund';

/**
 * Database steps of a refund, as local activities with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention, `retryStep`). Permanent database errors are not retried. Every step is
 * idempotent: a retry after a crash writes nothing twice.
 */
const OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: DB_STEP_RETRY.startToCloseMs,
  scheduleToCloseTimeout: DB_STEP_RETRY.scheduleToCloseMs,
  localRetryThreshold: DB_STEP_RETRY.localRetryThresholdMs,
  retry: {
    initialInterval: DB_STEP_RETRY.initialIntervalMs,
    backoffCoefficient: DB_STEP_RETRY.backoffCoefficient,
    maximumInterval: DB_STEP_RETRY.maximumIntervalMs,
    maximumAttempts: DB_STEP_RETRY.maximumAttempts,
    nonRetryableErrorTypes: ['DeterministicDatabaseError'],
  },
};

const db = proxyLocalActivities<RefundActivities>(OPTIONS);

export function beginRefund(refundId: string): Promise<BegunRefund | null> {
  return db.beginRefund.executeWithOptions({ ...OPTIONS, summary: 'begin refund: load the record the API wrote, mark the workflow started' }, [refundId]);
}

export function applyRefundTransition(request: RefundTransitionRequest): Promise<RefundState> {
  const what = request.failureClass ? `${request.to} (${request.failureClass})` : request.to;
  return db.applyRefundTransition.executeWithOptions({ ...OPTIONS, summary: `refund -> ${what}: projection, amount_refunded, ledger, balances, event` }, [request]);
}
