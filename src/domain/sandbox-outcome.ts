import type { Environment } from './environment';
import { isFailureClass, type FailureClass } from './failure-classes';

/** Sandbox completion delay (SPEC 8: about three seconds). */
export const COMPLETION_DELAY_MS = 3_000;
/** Sandbox `pending` outcome: stays in flight this long, then fails with `timeout`. */
export const PENDING_TIMEOUT_MS = 10 * 60_000;
/** Default lifetime of a charge: longer than the pending timeout (INTERFACE.md); src/domain/charge-lifetime.ts. */
export { CHARGE_LIFETIME_MS } from './charge-lifetime';

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

/**
 * `patched()` id (issue 34): a sandbox charge's rail timers (the three-second completion, the
 * ten-minute pending timeout) count from the charge's creation, not from its workflow's first task.
 * Before, a run that started minutes late (a worker working through a backlog) waited the whole
 * delay again, and a pending charge whose run started more than five minutes late expired at
 * `expires_at` instead of failing with `timeout` at ten minutes.
 */
export const RAIL_TIMERS_FROM_CREATE_PATCH = 'rail-timers-from-create';

export interface RailDue {
  /** How long from now until the rail answers: 0 when its time has passed, never more than the delay. */
  inMs: number;
  /** `expires_at` comes at or before the rail's answer: the charge expires instead. */
  expiresFirst: boolean;
}

/**
 * When the sandbox rail answers a charge created at `createdAt` with a delay of `afterMs`: at
 * creation + delay, on the workflow clock `nowMs`. A creation ahead of the workflow clock (the
 * database's and Temporal's clocks apart) waits the delay, never longer.
 */
export function railDue(afterMs: number, createdAt: string, expiresAt: string, nowMs: number): RailDue {
  const dueMs = Date.parse(createdAt) + afterMs;
  return { inMs: Math.min(afterMs, Math.max(0, dueMs - nowMs)), expiresFirst: Date.parse(expiresAt) <= dueMs };
}

/** Failure class recorded when an unresolved (indeterminate) charge reaches its expiry. */
export const UNRESOLVED_FAILURE_CLASS: FailureClass = 'timeout';
