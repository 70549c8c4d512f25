import { routeOf, type PartnerName, type RailRoutes } from '../src/domain/rail-routes';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { settlementState, type SettlementRecord, type SettlementSweepRequest, type SettlementTransitionRequest } from '../src/domain/settlement';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import type { Orm } from '../src/persistence/orm';
import type { SecretBox } from '../src/support/secret-box';
import {
  applySettlementTransition,
  SettlementConflictError,
  SettlementLedgerMismatchError,
  SettlementNotFoundError,
  settlementStatus,
  SettlementTransitionRefusedError,
  sweepSettlement,
} from '../src/persistence/settlements/settlement-store';
import type { SettlementActivities } from './types';
import { settlementRetryFacts } from '../src/persistence/settlements/settlement-retry-facts';
import type { LiveRail } from '../src/domain/live-rail';

/**
 * Permanent errors are non-retryable with a stable type (the batch workflow then asks an operator:
 * NeedsAttention with the reason); anything else (connection lost, lock timeout, deadlock) is retried.
 */
function asFailure(error: unknown): unknown {
  if (isDeterministicDbError(error)) return ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
  if (
    error instanceof SettlementLedgerMismatchError ||
    error instanceof SettlementConflictError ||
    error instanceof SettlementNotFoundError ||
    error instanceof SettlementTransitionRefusedError
  ) {
    return ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
  }
  return error;
}

/** Worker metric `payments_settlement_transitions{to,failure_class,environment}`, exported by the SDK. */
function countTransition(batch: SettlementRecord): void {
  Context.current()
    .metricMeter.createCounter('payments_settlement_transitions', '1', 'Settlement batch state changes written')
    .add(1, { to: batch.status, failure_class: batch.failureClass ?? 'none', environment: batch.environment });
}

/**
 * Worker metric `payments_settlement_sweep_rescans{environment}` and a warning: a sweep whose postings
 * after the balance's high-water mark did not add up to the balance read the whole unswept set
 * (src/persistence/settlements/sweep-mark.ts: exact, but the history's cost; something wrote a
 * posting behind the mark).
 */
function countRescan(balance: { merchantId: string; environment: string; currency: string; postings: number }): void {
  const context = Context.current();
  context.metricMeter.createCounter('payments_settlement_sweep_rescans', '1', 'Settlement sweeps that read the whole unswept set').add(1, { environment: balance.environment });
  context.log.warn('settlement sweep read the whole unswept set: the postings after the sweep mark did not add up to the balance', { ...balance });
}

/**
 * The settlement batch workflow's database steps (workflows/settlement-activities.ts). Answers hold
 * state only (they go into history). `secretBox` seals a merchant's account number the sweep finds
 * still in plain text (a row from before migration 20261125000005); nothing here opens one.
 */
export function createSettlementActivities(deps: { orm: Orm; secretBox: Pick<SecretBox, 'seal'>; liveRail?: LiveRail; railRoutes?: RailRoutes }): SettlementActivities {
  return {
    async sweepSettlement(request: SettlementSweepRequest) {
      try {
        const routes = deps.railRoutes;
        const result = await sweepSettlement(deps.orm, request, deps.secretBox, countTransition, deps.liveRail ?? 'none', countRescan, routes ? (currency) => bankRoute(routes, currency) : undefined);
        return 'kind' in result ? result : settlementState(result);
      } catch (error) {
        throw asFailure(error);
      }
    },
    async applySettlementTransition(request: SettlementTransitionRequest) {
      try {
        return settlementState(await applySettlementTransition(deps.orm, request, countTransition));
      } catch (error) {
        throw asFailure(error);
      }
    },
    async settlementStatus(settlementId: string) {
      return settlementStatus(deps.orm, settlementId);
    },
    async settlementRetryFacts(settlementId: string) {
      return settlementRetryFacts(deps.orm, settlementId);
    },
  };
}

/** Issue 46: a live batch's partner (its currency's `bank` route, first as written) and, with two or more, its failover order. */
function bankRoute(routes: RailRoutes, currency: string): { partner: PartnerName; route: string | null } | null {
  const route = routeOf(routes, 'bank', currency);
  if (!route) return null;
  return { partner: route.partner, route: route.legs.length > 1 ? route.legs.map((leg) => leg.partner).join(',') : null };
}
