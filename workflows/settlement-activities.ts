import { proxyLocalActivities } from '@temporalio/workflow';
import type { SettlementActivities } from '../activities/types';
import type { SettlementOutcome, SettlementState, SettlementSweepRequest, SettlementTransitionRequest } from '../src/domain/settlement';
import { dbStepOptions } from './db-step-options';

/**
 * Database steps of a settlement batch, as local activities with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention, `retryStep`). Permanent errors (a database refusal, a ledger that does
 * not add up, a batch id used for another balance) are not retried. Every step is idempotent: a retry
 * after a crash writes nothing twice.
 */
const OPTIONS = dbStepOptions(['DeterministicDatabaseError', 'SettlementLedgerMismatchError', 'SettlementConflictError', 'SettlementNotFoundError']);

const db = proxyLocalActivities<SettlementActivities>(OPTIONS);

export function sweepSettlement(request: SettlementSweepRequest): Promise<SettlementOutcome> {
  return db.sweepSettlement.executeWithOptions({ ...OPTIONS, summary: 'sweep: lock the available balance, batch row, swept postings, sweep transfer, settlement.created' }, [request]);
}

export function applySettlementTransition(request: SettlementTransitionRequest): Promise<SettlementState> {
  const what = request.failureClass ? `${request.to} (${request.failureClass})` : request.to;
  return db.applySettlementTransition.executeWithOptions({ ...OPTIONS, summary: `settlement -> ${what}: batch row, ledger, balances, event` }, [request]);
}
