import { proxyLocalActivities } from '@temporalio/workflow';
import type { PayoutActivities } from '../activities/types';
import { PAYOUT_NOT_FOUND, PAYOUT_TRANSITION_REFUSED, type BegunPayout, type PayoutState, type PayoutTransitionRequest } from '../src/domain/payout-state';
import { dbStepOptions } from './db-step-options';

/**
 * Database steps of a payout, as local activities with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention, `retryStep`). Refusals by the payout's rules and permanent database
 * errors are not retried. Every step is idempotent: a retry after a crash writes nothing twice.
 */
const OPTIONS = dbStepOptions([PAYOUT_NOT_FOUND, PAYOUT_TRANSITION_REFUSED, 'DeterministicDatabaseError']);

const db = proxyLocalActivities<PayoutActivities>(OPTIONS);

export function beginPayout(payoutId: string): Promise<BegunPayout> {
  return db.beginPayout.executeWithOptions({ ...OPTIONS, summary: 'begin payout: load the record the API wrote, mark the workflow started' }, [payoutId]);
}

export function payoutTransition(request: PayoutTransitionRequest): Promise<PayoutState> {
  const what = request.failureClass ? `${request.to} (${request.failureClass})` : request.to;
  const review = request.review ? `, review ${request.review.decision}` : '';
  return db.payoutTransition.executeWithOptions({ ...OPTIONS, summary: `payout -> ${what}${review}: projection, ledger, balances, event` }, [request]);
}
