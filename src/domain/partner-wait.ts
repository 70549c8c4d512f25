import { partnerPollDelayMs } from './live-rail';

/**
 * `patched()` id (issue 43, Medium "no continue-as-new in partner waits"): a live payout's wait for
 * the partner's word continues as new once its run's history is long (PARTNER_WAIT_HISTORY_EVENTS, or
 * the server suggests it), carrying what the wait knows (PartnerWaitCarry): a partner that says
 * PENDING for months no longer gets the run terminated by the server's history limit (about day 91
 * before). The same patch makes `unknown` after an acknowledgement (an accepted or duplicate
 * submission, a PENDING) one more answer that is not final: the payout stays pending, flagged, and the
 * engine keeps asking. Polls slow to every PARTNER_LONG_WAIT_POLL_MS after PARTNER_LONG_WAIT_AFTER_MS
 * (callbacks still wake the wait at once). Runs from before replay as they ran.
 */
export const PARTNER_WAIT_CONTINUES_PATCH = 'partner-wait-continues-as-new';

/**
 * `patched()` id (issue 43): in a long partner wait (PARTNER_WAIT_CONTINUES_PATCH), `unknown` raises
 * the "which it acknowledged before" flag only when the partner acknowledged the reference before it
 * said `unknown`; the resubmission that answers an `unknown` acknowledging it (a transfer lost on its
 * way: the first run's submission never arrived, or a restarted batch's or payout's reference the
 * partner never got) is the partner receiving it now, not a partner that lost track. Runs from
 * before flagged the payment NeedsAttention with that reason there, and replay so.
 */
export const UNKNOWN_FLAG_NEEDS_EARLIER_ACK_PATCH = 'unknown-flag-needs-earlier-ack';

/** A partner wait continues as new at its next poll once its run's history has this many events (the server's own limit is 51,200; it suggests continue-as-new at 4 Ki or 4 MB). */
export const PARTNER_WAIT_HISTORY_EVENTS = 2_000;

/** After a week without the partner's final answer, a long wait polls every two hours (a callback wakes it at once). */
export const PARTNER_LONG_WAIT_AFTER_MS = 7 * 24 * 3600_000;
export const PARTNER_LONG_WAIT_POLL_MS = 2 * 3600_000;

/** The next status poll's delay in a long wait (PARTNER_WAIT_CONTINUES_PATCH): partnerPollDelayMs, then every two hours after a week. */
export function longWaitPollDelayMs(poll: number, sinceMs: number): number {
  return sinceMs >= PARTNER_LONG_WAIT_AFTER_MS ? PARTNER_LONG_WAIT_POLL_MS : partnerPollDelayMs(poll, sinceMs);
}

/**
 * What a partner wait carries into the run it continues as (the workflow's input `resume`). Times are
 * absolute (epoch ms, workflow time): a new run keeps the first submission's window and never submits
 * as a first submission again.
 */
export interface PartnerWaitCarry {
  /** When the wait began (the first submission): the poll backoff and the operator's messages count from it. */
  startedMs: number;
  /** No submission goes out after this (the first run's window). */
  submitUntilMs: number;
  /** The payment's own deadline, when it has one (a charge's expiry). */
  deadlineMs?: number;
  /** The partner acknowledged the reference (accepted or duplicate submission, a PENDING): `unknown` is not final any more. */
  acknowledged: boolean;
  /** Polls asked so far (the backoff's position). */
  poll: number;
  /** Flags already raised (each is raised once per wait, not once per run). */
  flagged: boolean;
  flaggedLate: boolean;
  flaggedUnknown: boolean;
  /** The last reason the payment was flagged with, shown again by the new run. */
  reason?: string;
  /** A partner callback came after the last question: the new run asks at once. */
  wake: boolean;
  /** Runs of this wait before the new one. */
  runs: number;
  /** A charge: its deadline (expires_at) came and the partner, asked there, had no final answer (CHARGE_WAIT_CONTINUES_PATCH). */
  pastDeadline?: boolean;
  /** A charge: what the partner said when it had no final answer at the deadline. */
  lastAtDeadline?: 'pending' | 'unknown' | 'no_answer' | 'differs';
  /** The difference of the partner's SUCCESSFUL from ours that the wait holds (SUCCESS_MUST_MATCH_PATCH): flagged once. */
  heldMismatch?: string;
}

/**
 * `patched()` id (issue 43: "an in-time SUCCESSFUL for a different amount is not gated"): in a wait
 * that only the partner's word ends (a live charge's, a payout's or a settlement batch's), a
 * SUCCESSFUL whose amount or currency is not the payment's own is not the word that ends it. The
 * payment stays as it is (the charge awaiting its answer, the payout's or batch's money reserved),
 * flagged NeedsAttention with the difference, and the engine keeps asking: it ends on a SUCCESSFUL
 * that agrees (the partner corrected its record) or on a FAILED. The database's gate refuses the
 * end too (migration 20261215000075). Runs from before ended `succeeded` on it, then opened a
 * payment review naming the difference; they replay so.
 */
export const SUCCESS_MUST_MATCH_PATCH = 'success-must-match';

/** Why a payment whose partner said SUCCESSFUL for another amount or currency stays open (SUCCESS_MUST_MATCH_PATCH). */
export function heldSuccessReason(verb: string, paymentId: string, mismatch: string): string {
  return (
    `${mismatch}, for ${verb} ${paymentId}: the payment does not end on a SUCCESSFUL that disagrees with it, and the money stays where it is. ` +
    `Ask the partner to correct its record; the engine keeps asking and ends the payment on a SUCCESSFUL that agrees, or on a FAILED`
  );
}

/**
 * `patched()` id (issue 43): a live charge's wait for the partner's final answer (patch
 * partner-decides-live-charge: it may last past expires_at, however long) continues as new as a
 * payout's does (PartnerWaitCarry, with whether expires_at passed), never while an operator's
 * resolution waits for the partner; after a week, polls every two hours. Runs from before replay as they ran.
 */
export const CHARGE_WAIT_CONTINUES_PATCH = 'charge-wait-continues-as-new';

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Why `value` is not a PartnerWaitCarry, or null. */
export function partnerWaitCarryProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'resume must be an object';
  const c = value as Partial<Record<keyof PartnerWaitCarry, unknown>>;
  for (const key of ['startedMs', 'submitUntilMs', 'poll', 'runs'] as const) if (!isNumber(c[key])) return `resume.${key} must be a number`;
  if (c.deadlineMs !== undefined && !isNumber(c.deadlineMs)) return 'resume.deadlineMs must be a number';
  for (const key of ['acknowledged', 'flagged', 'flaggedLate', 'flaggedUnknown', 'wake'] as const) if (typeof c[key] !== 'boolean') return `resume.${key} must be true or false`;
  if (c.reason !== undefined && typeof c.reason !== 'string') return 'resume.reason must be a string';
  if (c.pastDeadline !== undefined && typeof c.pastDeadline !== 'boolean') return 'resume.pastDeadline must be true or false';
  if (c.lastAtDeadline !== undefined && !['pending', 'unknown', 'no_answer'].includes(c.lastAtDeadline as string)) return 'resume.lastAtDeadline must be pending, unknown or no_answer';
  return null;
}
