import { proxyLocalActivities } from '@temporalio/workflow';
import type { RefundActivities } from '../activities/types';
import type { BegunRefund, RefundState, RefundTransitionRequest } from '../src/domain/refund';
import { dbStepOptions } from './db-step-options';

/**
 * Database steps of a refund, as local activities with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention, `retryStep`). Permanent database errors are not retried. Every step is
 * idempotent: a retry after a crash writes nothing twice.
 */
const OPTIONS = dbStepOptions(['DeterministicDatabaseError']);

const db = proxyLocalActivities<RefundActivities>(OPTIONS);

export function beginRefund(refundId: string): Promise<BegunRefund | null> {
  return db.beginRefund.executeWithOptions({ ...OPTIONS, summary: 'begin refund: load the record the API wrote, mark the workflow started' }, [refundId]);
}

export function applyRefundTransition(request: RefundTransitionRequest): Promise<RefundState> {
  const what = request.failureClass ? `${request.to} (${request.failureClass})` : request.to;
  return db.applyRefundTransition.executeWithOptions({ ...OPTIONS, summary: `refund -> ${what}: projection, amount_refunded, ledger, balances, event` }, [request]);
}
