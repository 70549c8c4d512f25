import type { CardWindow } from '../../../src/domain/live-card';
import { ApplicationFailure } from '@temporalio/common';
import type { ChargeActivities } from '../../../activities/types';
import type { ChargeRecord, ChargeTransitionRequest } from '../../../src/domain/charge';
import { canTransition } from '../../../src/domain/charge-status';
import { sandboxOutcomeOf } from '../../../src/domain/charge-start';
import { chargeState } from '../../../src/domain/charge-state';
import { isCheckoutAction } from '../../../src/domain/hosted-checkout';
import { auditLog } from './fake-audit';

export type FakeCall =
  | { activity: 'beginCharge'; chargeId: string }
  | { activity: 'recordAcceptedCharge'; chargeId: string; record: ChargeRecord }
  | { activity: 'applyChargeTransition'; chargeId: string; request: ChargeTransitionRequest; repeat?: boolean }
  | { activity: 'readCardWindow'; chargeId: string };

/**
 * In-memory stand-in for the charge store behind ChargeActivities, with the same contract as
 * activities/charges.ts: idempotent acceptance, idempotent transitions, refusals as non-retryable
 * failures typed TransitionRefusedError / ChargeNotFoundError. Every call is logged in order.
 * `breakStep` simulates a database that keeps failing a step until `heal`.
 */
export class FakeChargeStore {
  readonly charges = new Map<string, ChargeRecord>();
  readonly calls: FakeCall[] = [];
  /** Steps that fail on every call until healed: (charge id, activity) -> the error thrown. */
  private readonly outages = new Map<string, () => Error>();

  /** Makes every call of `activity` for this charge throw `error()` (a database outage), until `heal`. */
  breakStep(chargeId: string, activity: FakeCall['activity'], error: () => Error = () => new Error('connect ECONNREFUSED 127.0.0.1:5432')): this {
    this.outages.set(`${chargeId}|${activity}`, error);
    return this;
  }

  heal(chargeId: string): this {
    for (const key of [...this.outages.keys()]) if (key.startsWith(`${chargeId}|`)) this.outages.delete(key);
    return this;
  }

  private failIfBroken(chargeId: string, activity: FakeCall['activity']): void {
    const error = this.outages.get(`${chargeId}|${activity}`);
    if (error) throw error();
  }

  callsFor(chargeId: string): FakeCall[] {
    return this.calls.filter((c) => c.chargeId === chargeId);
  }

  /**
   * The transitions a charge was asked for, in order (acceptance excluded), applied or refused; a
   * repeat of the state the charge is in already is left out: the store changes nothing for it (an
   * activity retried, or a local activity run again after its workflow task was lost on a loaded
   * machine: CI, 2026-11-30). `callsFor` has every call.
   */
  transitionsOf(chargeId: string): ChargeTransitionRequest[] {
    return this.callsFor(chargeId).flatMap((c) => (c.activity === 'applyChargeTransition' && !c.repeat ? [c.request] : []));
  }

  /** What the API's create transaction does before it starts the workflow: the charge exists. */
  write(record: ChargeRecord): this {
    this.charges.set(record.id, record);
    return this;
  }

  /** Live card charges (issue 45): what the hosted page submitted, per charge (absent: no card yet). */
  readonly cards = new Map<string, CardWindow>();

  readonly activities: ChargeActivities = {
    readCardWindow: async ({ chargeId, close }) => {
      this.calls.push({ activity: 'readCardWindow', chargeId });
      const window = this.cards.get(chargeId);
      if (window) return window;
      if (!close) return { state: 'open' };
      this.cards.set(chargeId, { state: 'closed' });
      return { state: 'closed' };
    },
    beginCharge: async (chargeId) => {
      this.calls.push({ activity: 'beginCharge', chargeId });
      this.failIfBroken(chargeId, 'beginCharge');
      const charge = this.charges.get(chargeId);
      if (!charge) throw ApplicationFailure.create({ type: 'ChargeNotFoundError', message: `charge ${chargeId} does not exist`, nonRetryable: true });
      return { charge: chargeState(charge), sandboxOutcome: sandboxOutcomeOf(charge.metadataJson), ...(isCheckoutAction(charge.action) ? { checkout: true } : {}) };
    },
    recordAcceptedCharge: async (draft) => {
      this.calls.push({ activity: 'recordAcceptedCharge', chargeId: draft.id, record: draft });
      this.failIfBroken(draft.id, 'recordAcceptedCharge');
      const existing = this.charges.get(draft.id);
      if (existing) return existing;
      this.charges.set(draft.id, draft);
      return draft;
    },
    applyChargeTransition: async (request) => {
      const call: FakeCall & { activity: 'applyChargeTransition' } = { activity: 'applyChargeTransition', chargeId: request.chargeId, request };
      this.calls.push(call);
      this.failIfBroken(request.chargeId, 'applyChargeTransition');
      const before = this.charges.get(request.chargeId);
      if (before?.status === request.to) call.repeat = true;
      if (!before) {
        throw ApplicationFailure.create({ type: 'ChargeNotFoundError', message: `charge ${request.chargeId} does not exist`, nonRetryable: true });
      }
      if (before.status === request.to) return chargeState(before);
      if (!canTransition(before.status, request.to)) {
        throw ApplicationFailure.create({
          type: 'TransitionRefusedError',
          message: `charge ${before.id}: ${before.status} -> ${request.to} is not allowed`,
          nonRetryable: true,
        });
      }
      const after: ChargeRecord = { ...before, status: request.to, failureClass: request.failureClass ?? before.failureClass, updatedAt: request.at };
      this.charges.set(after.id, after);
      if (request.audit) auditLog.recordChange(after.id, request.audit, after, chargeState(after));
      return chargeState(after);
    },
  };
}
