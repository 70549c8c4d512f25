import { ApplicationFailure } from '@temporalio/common';
import type { ChargeActivities } from '../../../activities/types';
import type { ChargeRecord, ChargeTransitionRequest } from '../../../src/domain/charge';
import { canTransition } from '../../../src/domain/charge-status';

export type FakeCall =
  | { activity: 'recordAcceptedCharge'; chargeId: string; record: ChargeRecord }
  | { activity: 'applyChargeTransition'; chargeId: string; request: ChargeTransitionRequest };

/**
 * In-memory stand-in for the charge store behind ChargeActivities, with the same contract as
 * activities/charges.ts: idempotent acceptance, idempotent transitions, refusals as non-retryable
 * failures typed TransitionRefusedError / ChargeNotFoundError. Every call is logged in order.
 */
export class FakeChargeStore {
  readonly charges = new Map<string, ChargeRecord>();
  readonly calls: FakeCall[] = [];

  callsFor(chargeId: string): FakeCall[] {
    return this.calls.filter((c) => c.chargeId === chargeId);
  }

  /** The transitions a charge went through, in order (acceptance excluded). */
  transitionsOf(chargeId: string): ChargeTransitionRequest[] {
    return this.callsFor(chargeId).flatMap((c) => (c.activity === 'applyChargeTransition' ? [c.request] : []));
  }

  readonly activities: ChargeActivities = {
    recordAcceptedCharge: async (draft) => {
      this.calls.push({ activity: 'recordAcceptedCharge', chargeId: draft.id, record: draft });
      const existing = this.charges.get(draft.id);
      if (existing) return existing;
      this.charges.set(draft.id, draft);
      return draft;
    },
    applyChargeTransition: async (request) => {
      this.calls.push({ activity: 'applyChargeTransition', chargeId: request.chargeId, request });
      const before = this.charges.get(request.chargeId);
      if (!before) {
        throw ApplicationFailure.create({ type: 'ChargeNotFoundError', message: `charge ${request.chargeId} does not exist`, nonRetryable: true });
      }
      if (before.status === request.to) return before;
      if (!canTransition(before.status, request.to)) {
        throw ApplicationFailure.create({
          type: 'TransitionRefusedError',
          message: `charge ${before.id}: ${before.status} -> ${request.to} is not allowed`,
          nonRetryable: true,
        });
      }
      const after: ChargeRecord = { ...before, status: request.to, failureClass: request.failureClass ?? before.failureClass, updatedAt: request.at };
      this.charges.set(after.id, after);
      return after;
    },
  };
}
