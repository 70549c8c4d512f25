import { proxyLocalActivities } from '@temporalio/workflow';
import type { SettlementRunActivities } from '../activities/types';
import type { SettlementRunPage, SettlementRunPageRequest } from '../src/domain/settlement-run';
import { dbStepOptions } from './db-step-options';

/**
 * The settlement run's database step, a local activity with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention on the run, `retryStep`). Idempotent: a retried page writes the same rows.
 */
const OPTIONS = dbStepOptions(['DeterministicDatabaseError']);

const db = proxyLocalActivities<SettlementRunActivities>(OPTIONS);

export function settlementRunPage(request: SettlementRunPageRequest): Promise<SettlementRunPage> {
  return db.settlementRunPage.executeWithOptions({ ...OPTIONS, summary: `settlement run page of ${request.limit}: settleable balances, skips recorded` }, [request]);
}
