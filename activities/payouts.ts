import { ApplicationFailure } from '@temporalio/common';
import type { PayoutRecord } from '../src/domain/payout';
import { payoutReviewTimeoutMs } from '../src/domain/payout-review';
import { PAYOUT_NOT_FOUND, PAYOUT_TRANSITION_REFUSED, payoutState, type BegunPayout, type PayoutTransitionRequest } from '../src/domain/payout-state';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import type { Orm } from '../src/persistence/orm';
import { markPayoutWorkflowStarted, PayoutNotFoundError, PayoutTransitionRefusedError, writePayoutTransition } from '../src/persistence/payouts/payout-store';
import type { PayoutActivities } from './types';

/** Refusals by the payout's rules and permanent database errors: non-retryable, with a stable type. Anything else is retried. */
function asFailure(error: unknown): unknown {
  if (error instanceof PayoutNotFoundError) return ApplicationFailure.create({ type: PAYOUT_NOT_FOUND, message: error.message, nonRetryable: true });
  if (error instanceof PayoutTransitionRefusedError) return ApplicationFailure.create({ type: PAYOUT_TRANSITION_REFUSED, message: error.message, nonRetryable: true });
  if (isDeterministicDbError(error)) return ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
  return error;
}

/** When an unanswered review times out: PAYOUT_REVIEW_TIMEOUT after the payout was created (and held). */
function reviewDeadline(payout: PayoutRecord, timeoutMs: number): string | null {
  return payout.status === 'held_for_review' ? new Date(Date.parse(payout.createdAt) + timeoutMs).toISOString() : null;
}

/**
 * The payout workflow's database steps (workflows/payout-activities.ts). `reviewTimeoutMs` is
 * PAYOUT_REVIEW_TIMEOUT of the worker (default 72h); the deadline it gives goes into history with the
 * begin step's answer, so the review timer replays unchanged whatever the setting later becomes.
 */
export function createPayoutActivities(deps: { orm: Orm; reviewTimeoutMs?: number }): PayoutActivities {
  const timeoutMs = deps.reviewTimeoutMs ?? payoutReviewTimeoutMs();
  return {
    async beginPayout(payoutId: string): Promise<BegunPayout> {
      try {
        const payout = await markPayoutWorkflowStarted(deps.orm, payoutId);
        if (!payout) throw new PayoutNotFoundError(payoutId);
        return { payout: payoutState(payout), sandboxOutcome: payout.environment === 'sandbox' ? payout.sandboxOutcome : null, reviewDeadline: reviewDeadline(payout, timeoutMs) };
      } catch (error) {
        throw asFailure(error);
      }
    },
    async payoutTransition(request: PayoutTransitionRequest) {
      try {
        const { payoutId, ...change } = request;
        return payoutState(await writePayoutTransition(deps.orm, payoutId, change));
      } catch (error) {
        throw asFailure(error);
      }
    },
  };
}

