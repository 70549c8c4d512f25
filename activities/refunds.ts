import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { REFUND_TRANSITION_REFUSED, refundState, type RefundRecord, type RefundTransitionRequest } from '../src/domain/refund';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import type { Orm } from '../src/persistence/orm';
import { applyRefundTransition, beginRefund, RefundTransitionRefusedError } from '../src/persistence/refunds/refund-store';
import type { RefundActivities } from './types';

/** The status gate's refusals and permanent database errors are non-retryable with a stable type; anything else (connection lost, lock timeout, deadlock) is retried. */
function asFailure(error: unknown): unknown {
  if (error instanceof RefundTransitionRefusedError) return ApplicationFailure.create({ type: REFUND_TRANSITION_REFUSED, message: error.message, nonRetryable: true });
  if (isDeterministicDbError(error)) return ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
  return error;
}

/** Worker metric `payments_refund_transitions{to,failure_class,environment}`, exported by the SDK. */
function countTransition(refund: RefundRecord): void {
  Context.current()
    .metricMeter.createCounter('payments_refund_transitions', '1', 'Refund state changes written')
    .add(1, { to: refund.status, failure_class: refund.failureClass ?? 'none', environment: refund.environment });
}

/** The refund workflow's database steps (workflows/refund-activities.ts). Answers hold state only (they go into history). */
export function createRefundActivities(deps: { orm: Orm }): RefundActivities {
  return {
    async beginRefund(refundId: string) {
      try {
        return await beginRefund(deps.orm, refundId);
      } catch (error) {
        throw asFailure(error);
      }
    },
    async applyRefundTransition(request: RefundTransitionRequest) {
      try {
        return refundState(await applyRefundTransition(deps.orm, request, countTransition));
      } catch (error) {
        throw asFailure(error);
      }
    },
  };
}
