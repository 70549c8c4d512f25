import { proxyLocalActivities, type LocalActivityOptions } from '@temporalio/workflow';
import type { SettlementActivities } from '../activities/types';
import { DB_STEP_RETRY } from '../src/domain/charge-attention';
import type { SettlementOutcome, SettlementState, SettlementSweepRequest, SettlementTransitionRequest } from '../src/domain/settlement';

/**
 * Database steps of a settlement batch, as local activities with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention, `retryStep`). Permanent errors (a database refusal, a ledger that does
 * not add up, a batch id used for another balance) are not retried. Every step is idempotent: a retry
 * after a crash writes nothing twice.
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
    nonRetryableErrorTypes: ['DeterministicDatabaseError', 'SettlementLedgerMismatchError', 'SettlementConflictError', 'SettlementNotFoundError'],
  },
};

const db = proxyLocalActivities<SettlementActivities>(OPTIONS);

export function sweepSettlement(request: SettlementSweepRequest): Promise<SettlementOutcome> {
  return db.sweepSettlement.executeWithOptions({ ...OPTIONS, summary: 'sweep: lock the available balance, batch row, swept postings, sweep transfer, settlement.created' }, [request]);
}

export function applySettlementTransition(request: SettlementTransitionRequest): Promise<SettlementState> {
  const what = request.failureClass ? `${request.to} (${request.failureClass})` : request.to;
  return db.applySettlementTransition.executeWithOptions({ ...OPTIONS, summary: `settlement -> ${what}: batch row, ledger, balances, event` }, [request]);
}
