import type { Environment } from './environment';
import { isFailureClass, type FailureClass } from './failure-classes';

/** Sandbox completion delay (SPEC 8: about three seconds). */
export const COMPLETION_DELAY_MS = 3_000;
/** Sandbox `pending` outcome: stays in flight this long, then fails with `timeout`. */
export const PENDING_TIMEOUT_MS = 10 * 60_000;
/** Default lifetime of a charge: longer than the pending timeout (INTERFACE.md). */
export const CHARGE_LIFETIME_MS = 15 * 60_000;

/** What the simulated rail will do with a charge, decided once at acceptance. */
export type RailPlan =
  | { kind: 'succeed'; afterMs: number }
  | { kind: 'fail'; failureClass: FailureClass }
  | { kind: 'time_out'; afterMs: number }
  | { kind: 'unresolved' };

/**
 * The sandbox reads `metadata.sandbox_outcome` (SPEC 4.2); an unrecognised value succeeds.
 * Live has no outcome switch: the simulated partner approves like the sandbox default.
 */
export function railPlan(environment: Environment, outcome: unknown): RailPlan {
  if (environment === 'sandbox') {
    if (outcome === 'pending') return { kind: 'time_out', afterMs: PENDING_TIMEOUT_MS };
    if (outcome === 'indeterminate') return { kind: 'unresolved' };
    if (isFailureClass(outcome)) return { kind: 'fail', failureClass: outcome };
  }
  return { kind: 'succeed', afterMs: COMPLETION_DELAY_MS };
}

/** Failure class recorded when an unresolved (indeterminate) charge reaches its expiry. */
export const UNRESOLVED_FAILURE_CLASS: FailureClass = 'timeout';
