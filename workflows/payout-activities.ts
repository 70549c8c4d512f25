import { proxyLocalActivities, type LocalActivityOptions } from '@temporalio/workflow';
import type { PayoutActivities } from '../activities/types';
import { DB_STEP_RETRY } from '../src/domain/charge-attention';
import { PAYOUT_NOT_FOUND, PAYOUT_TRANSITION_REFUSED, type BegunPayout, type PayoutState, type PayoutTransitionRequest } from '../src/domain/payout-state';

/**
 * Database steps of a payout, as local activities with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention, `retryStep`). Refusals by the payout's rules and permanent database
 * errors are not retried. Every step is idempotent: a retry after a crash writes nothing twice.
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
    nonRetryableErrorTypes: [PAYOUT_NOT_FOUND, PAYOUT_TRANSITION_REFUSED, 'DeterministicDatabaseError'],
  },
};

const db = proxyLocalActivities<PayoutActivities>(OPTIONS);

export function beginPayout(payoutId: string): Promise<BegunPayout> {
  return db.beginPayout.executeWithOptions({ ...OPTIONS, summary: 'begin payout: load the record the API wrote, mark the workflow started' }, [payoutId]);
}

export function payoutTransition(request: PayoutTransitionRequest): Promise<PayoutState> {
  const what = request.failureClass ? `${request.to} (${request.failureClass})` : request.to;
  const review = request.review ? `, review ${request.review.decision}` : '';
  return db.payoutTransition.executeWithOptions({ ...OPTIONS, summary: `payout -> ${what}${review}: projection, ledger, balances, event` }, [request]);
}
