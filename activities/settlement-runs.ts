import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { SettlementRunPageRequest } from '../src/domain/settlement-run';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import type { Orm } from '../src/persistence/orm';
import { settlementRunPage } from '../src/persistence/settlements/settlement-balances';
import type { SettlementRunActivities } from './types';
import type { LiveRail } from '../src/domain/live-rail';

/** Permanent database errors are non-retryable with a stable type; anything else (connection lost, lock timeout) is retried. */
function asFailure(error: unknown): unknown {
  if (isDeterministicDbError(error)) return ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
  return error;
}

/** The settlement run's database step (workflows/settlement-run-activities.ts). */
export function createSettlementRunActivities(deps: { orm: Orm; liveRail?: LiveRail }): SettlementRunActivities {
  return {
    async settlementRunPage(request: SettlementRunPageRequest) {
      let page;
      try {
        page = await settlementRunPage(deps.orm, request, deps.liveRail ?? 'none');
      } catch (error) {
        throw asFailure(error);
      }
      // Why a merchant was not settled, in the worker's log as well as in settlement_skips (no amounts, no account data).
      const log = Context.current().log;
      for (const skip of page.skipped) {
        log.warn('settlement skipped', { runId: request.runId, merchantId: skip.merchantId, environment: skip.environment, currency: skip.currency, reason: skip.reason });
      }
      return page;
    },
  };
}
