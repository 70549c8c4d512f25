/**
 * What a sandbox payment does, by its `metadata.sandbox_outcome`, written from SPEC 3 and 4.2 (not
 * from the engine's code): absent, `succeed` or any value the table does not name succeeds about three
 * seconds after acceptance; `pending` stays in flight ten minutes, then fails with `timeout`; each
 * failure class fails at once with that class; `indeterminate` leaves the create unanswered (504
 * partner_timeout). "The same sandbox_outcome works on collections and on payouts."
 */

const COMPLETION_MS = 3_000;
const PENDING_MS = 10 * 60_000;
const FAILURE_CLASSES = new Set(['insufficient_funds', 'invalid_recipient', 'limit_exceeded', 'declined', 'timeout', 'transport', 'partner_unavailable', 'duplicate']);

/**
 * How long after a payment's timer is due its end must show: the engine settles after every step,
 * then the invariants run; a timer due during those checks shows only after the next step. Real time,
 * far above a settle's and a check's length.
 */
export const MODEL_SLACK_MS = 30_000;

/** A payment's end as the outcome decides it. */
export interface ModelEnd {
  status: 'succeeded' | 'failed';
  failureClass: string | null;
  /** Workflow time after acceptance at which it ends. */
  afterMs: number;
}

/** The end `outcome` decides; null for `indeterminate` (the create is unanswered: nothing to hold the engine to). */
export function sandboxEnd(outcome: unknown): ModelEnd | null {
  if (outcome === 'indeterminate') return null;
  if (outcome === 'pending') return { status: 'failed', failureClass: 'timeout', afterMs: PENDING_MS };
  if (typeof outcome === 'string' && FAILURE_CLASSES.has(outcome)) return { status: 'failed', failureClass: outcome, afterMs: 0 };
  return { status: 'succeeded', failureClass: null, afterMs: COMPLETION_MS };
}

/**
 * What the model expects of a payment accepted at `at` (simulated ms) with end `end`, at `now`:
 * `open` (still in flight, any of the open statuses), `ended` (its end, nothing else), or `either`
 * (its timer due within MODEL_SLACK_MS: no verdict yet).
 */
export function expectedPhase(end: ModelEnd, at: number, now: number): 'open' | 'ended' | 'either' {
  const due = at + end.afterMs;
  if (now < due) return 'open';
  return now >= due + MODEL_SLACK_MS ? 'ended' : 'either';
}
