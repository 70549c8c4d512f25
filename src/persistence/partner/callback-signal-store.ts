import type { Orm } from '../orm';

/**
 * How often a verified partner callback may signal a workflow (issue 30): the claims of
 * `partner_callback_signals` (Migration20261207000001). A callback URL never expires and the partner
 * authenticates by it alone, so a leaked URL can be replayed at will; each signal it caused would add
 * history events to the payment's workflow (and a status request to the partner) or flag its payment
 * review again (a new run once the last one ended). The claim is one conditional upsert, so it holds
 * across API processes.
 *
 * A claim is per workflow signalled, keyed by its id (column `payment_id`): the payment's own (its id)
 * for the wake-up, its review's (`review-<paymentId>`) for a late callback's flag. So a late answer is
 * never debounced by the payment's own last wake-up (a FAILED callback, then SUCCESSFUL a second later).
 */

/** At most one signal per workflow per this window (a callback inside it is `debounced`). */
export const CALLBACK_DEBOUNCE_MS = 5_000;
/** At most this many signals in a workflow's life (a callback past it is `capped`; the payment's own polls go on). */
export const CALLBACK_SIGNAL_CAP = 100;

export interface CallbackSignalLimits {
  /** Default CALLBACK_DEBOUNCE_MS. */
  debounceMs?: number | undefined;
  /** Default CALLBACK_SIGNAL_CAP. */
  cap?: number | undefined;
}

/** `signal`: the claim is taken, signal now; `debounced`: one was inside the window; `capped`: the workflow had its share. */
export type CallbackSignalClaim = 'signal' | 'debounced' | 'capped';

/**
 * Claims the right to signal `workflowId` now: one `insert … on conflict do update … where` that
 * succeeds only when the last signal is older than the window and the count is under the cap, and
 * then counts this one. Refused, a second read says which limit held (for the log only).
 */
export async function claimCallbackSignal(orm: Orm, workflowId: string, limits: CallbackSignalLimits = {}): Promise<CallbackSignalClaim> {
  const debounceMs = limits.debounceMs ?? CALLBACK_DEBOUNCE_MS;
  const cap = limits.cap ?? CALLBACK_SIGNAL_CAP;
  const db = orm.em.getConnection();
  const taken = await db.execute<Array<{ signals: number }>>(
    `insert into partner_callback_signals as s (payment_id, last_signal_at, signals) values (?, clock_timestamp(), 1)
     on conflict (payment_id) do update set last_signal_at = clock_timestamp(), signals = s.signals + 1
     where s.signals < ? and s.last_signal_at <= clock_timestamp() - make_interval(secs => ?::double precision / 1000)
     returning signals`,
    [workflowId, cap, debounceMs],
  );
  if (taken.length > 0) return 'signal';
  const rows = await db.execute<Array<{ signals: number }>>(`select signals from partner_callback_signals where payment_id = ?`, [workflowId]);
  return rows[0] && rows[0].signals >= cap ? 'capped' : 'debounced';
}
