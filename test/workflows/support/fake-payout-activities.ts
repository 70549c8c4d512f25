import { ApplicationFailure } from '@temporalio/common';
import type { PayoutActivities } from '../../../activities/types';
import { canPayoutTransition, type PayoutRecord } from '../../../src/domain/payout';
import { DEFAULT_PAYOUT_REVIEW_TIMEOUT_MS } from '../../../src/domain/payout-review';
import { PAYOUT_NOT_FOUND, PAYOUT_TRANSITION_REFUSED, payoutState, type PayoutTransitionRequest } from '../../../src/domain/payout-state';
import { auditLog } from './fake-audit';

export type FakePayoutCall = { activity: 'beginPayout'; payoutId: string } | { activity: 'payoutTransition'; payoutId: string; request: PayoutTransitionRequest; repeat?: boolean };

/**
 * In-memory stand-in for the payout store behind PayoutActivities, with the contract of
 * activities/payouts.ts: idempotent transitions, refusals as non-retryable failures typed
 * PayoutTransitionRefusedError / PayoutNotFoundError. Every call is logged in order.
 */
export class FakePayoutStore {
  readonly payouts = new Map<string, PayoutRecord>();
  readonly calls: FakePayoutCall[] = [];
  reviewTimeoutMs = DEFAULT_PAYOUT_REVIEW_TIMEOUT_MS;

  write(record: PayoutRecord): this {
    this.payouts.set(record.id, record);
    return this;
  }

  /** The transitions asked for, applied or refused; a repeat of the state the payout is in already changes nothing and is left out (`calls` has every call). */
  transitionsOf(payoutId: string): PayoutTransitionRequest[] {
    return this.calls.flatMap((c) => (c.activity === 'payoutTransition' && c.payoutId === payoutId && !c.repeat ? [c.request] : []));
  }

  readonly activities: PayoutActivities = {
    beginPayout: async (payoutId) => {
      this.calls.push({ activity: 'beginPayout', payoutId });
      const payout = this.payouts.get(payoutId);
      if (!payout) throw ApplicationFailure.create({ type: PAYOUT_NOT_FOUND, message: `payout ${payoutId} does not exist`, nonRetryable: true });
      const reviewDeadline = payout.status === 'held_for_review' ? new Date(Date.parse(payout.createdAt) + this.reviewTimeoutMs).toISOString() : null;
      return { payout: payoutState(payout), sandboxOutcome: payout.sandboxOutcome, reviewDeadline };
    },
    payoutTransition: async (request) => {
      const call: FakePayoutCall & { activity: 'payoutTransition' } = { activity: 'payoutTransition', payoutId: request.payoutId, request };
      this.calls.push(call);
      const before = this.payouts.get(request.payoutId);
      if (before?.status === request.to) call.repeat = true;
      if (!before) throw ApplicationFailure.create({ type: PAYOUT_NOT_FOUND, message: `payout ${request.payoutId} does not exist`, nonRetryable: true });
      if (before.status === request.to) return payoutState(before);
      if (!canPayoutTransition(before.status, request.to)) {
        throw ApplicationFailure.create({ type: PAYOUT_TRANSITION_REFUSED, message: `payout ${before.id} cannot go from ${before.status} to ${request.to}`, nonRetryable: true });
      }
      const review = request.review;
      const after: PayoutRecord = {
        ...before,
        status: request.to,
        failureClass: request.to === 'failed' ? (request.failureClass ?? null) : before.failureClass,
        reviewDecision: review?.decision ?? before.reviewDecision,
        reviewReason: review?.reason ?? before.reviewReason,
        reviewDecidedBy: review?.decidedBy ?? before.reviewDecidedBy,
        reviewDecidedAt: review?.decidedAt ?? before.reviewDecidedAt,
        reversedAt: request.to === 'reversed' ? request.at : before.reversedAt,
        updatedAt: request.at,
      };
      this.payouts.set(after.id, after);
      if (request.audit) auditLog.recordChange(after.id, request.audit, after, payoutState(after));
      return payoutState(after);
    },
  };
}
