import { proxyLocalActivities, type LocalActivityOptions } from '@temporalio/workflow';
import type { SettlementRunActivities } from '../activities/types';
import { DB_STEP_RETRY } from '../src/domain/charge-attention';
import type { SettlementRunPage, SettlementRunPageRequest } from '../src/domain/settlement-run';

/**
 * The settlement run's database step, a local activity with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention on the run, `retryStep`). Idempotent: a retried page writes the same rows.
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

const db = proxyLocalActivities<SettlementRunActivities>(OPTIONS);

export function settlementRunPage(request: SettlementRunPageRequest): Promise<SettlementRunPage> {
  return db.settlementRunPage.executeWithOptions({ ...OPTIONS, summary: `settlement run page of ${request.limit}: settleable balances, skips recorded` }, [request]);
}
