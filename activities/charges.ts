import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ChargeRecord } from '../src/domain/charge';
import type { ChargeTransitionRequest } from '../src/domain/charge';
import { chargeState } from '../src/domain/charge-state';
import { applyChargeTransition, beginCharge, ChargeNotFoundError, recordAcceptedCharge, TransitionRefusedError } from '../src/persistence/charges/charge-store';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import type { Orm } from '../src/persistence/orm';
import type { ChargeActivities } from './types';
import type { CardWindow } from '../src/domain/live-card';
import { closeCardWindow, findCardSubmission } from '../src/persistence/charges/card-submission-store';

/**
 * Domain refusals and permanent database errors become non-retryable failures with a stable type;
 * anything else (connection lost, lock timeout, deadlock) is retried.
 */
function asFailure(error: unknown): unknown {
  if (error instanceof TransitionRefusedError || error instanceof ChargeNotFoundError) {
    return ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
  }
  if (isDeterministicDbError(error)) {
    return ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
  }
  return error;
}

/** Worker metric `payments_charge_transitions{to,failure_class,environment}`, exported by the SDK. */
function countTransition(charge: ChargeRecord): void {
  Context.current()
    .metricMeter.createCounter('payments_charge_transitions', '1', 'Charge state changes written')
    .add(1, { to: charge.status, failure_class: charge.failureClass ?? 'none', environment: charge.environment });
}

export function createChargeActivities(deps: { orm: Orm }): ChargeActivities {
  return {
    async beginCharge(chargeId: string) {
      try {
        const begun = await beginCharge(deps.orm, chargeId);
        return { charge: chargeState(begun.charge), sandboxOutcome: begun.sandboxOutcome, ...(begun.checkout ? { checkout: true } : {}) };
      } catch (error) {
        throw asFailure(error);
      }
    },
    async recordAcceptedCharge(draft: ChargeRecord) {
      try {
        return await recordAcceptedCharge(deps.orm, draft);
      } catch (error) {
        throw asFailure(error);
      }
    },
    async readCardWindow(request: { chargeId: string; close: boolean }): Promise<CardWindow> {
      if (request.close) await closeCardWindow(deps.orm, request.chargeId);
      const submission = await findCardSubmission(deps.orm, request.chargeId);
      if (!submission) return { state: 'open' };
      if (submission.state === 'closed') return { state: 'closed' };
      return {
        state: 'submitted',
        submittedAt: submission.createdAt,
        outcome: submission.outcome,
        ...(submission.reason ? { reason: submission.reason } : {}),
        ...(submission.failureClass ? { failureClass: submission.failureClass } : {}),
      };
    },
    async applyChargeTransition(request: ChargeTransitionRequest) {
      try {
        return chargeState(await applyChargeTransition(deps.orm, request, countTransition));
      } catch (error) {
        throw asFailure(error);
      }
    },
  };
}
