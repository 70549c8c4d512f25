import { COME_BACK_EARLY_MS, LEASE_MARGIN_MS, WAIT_IN_ATTEMPT_MS } from '../../domain/webhook-throttle';
import type { Orm } from '../orm';

/** What the throttle lets one attempt do now (issue 49). */
export type SendPermit =
  /** Send at `sendAtMs` (the database's clock, within WAIT_IN_ATTEMPT_MS); `leased`: a place of max_in_flight is held until releaseSend. */
  | { kind: 'send'; sendAtMs: number; leased: boolean }
  /** Not now: the attempt comes back in `retryInMs` (its reserved slot, or a look at the in-flight places again). */
  | { kind: 'later'; retryInMs: number; why: 'rate' | 'in_flight' };

export interface SendRequest {
  deliveryId: string;
  attempt: number;
  endpointId: string;
  timeoutSeconds: number;
}

/**
 * The throttle's decision for one attempt: one call of `webhook_reserve_send`
 * (migrations/Migration20261221000006_webhook_reserve_send.ts, replaced by
 * Migration20261221000007_webhook_let_go.ts), one statement and one round trip with
 * the endpoint's row locked for it, on the database's clock, so every process's sends to the endpoint
 * take their turns from one schedule:
 *
 * - `max_per_second`: the attempt keeps the slot it reserved before (a retry that came back for it),
 *   else reserves the endpoint's next free slot (spaced 1 / max_per_second), and the plan also waits
 *   for the second before it to hold fewer than max_per_second sends let go. Further away than
 *   WAIT_IN_ATTEMPT_MS answers `later`, COME_BACK_EARLY_MS before. The send is counted only when it is
 *   let go (`letGo`, webhook-let-go-store.ts), so a plan is never taken for a send.
 * - `max_in_flight`: all places taken answers `later` (the slot, if any, is kept); else a lease until
 *   the send's timeout plus LEASE_MARGIN_MS.
 *
 * The answer is the instant the send may leave (not a wait measured before the round trip), so the
 * time the call took is not added to the wait. The limits are read from the row, so a PATCH applies
 * to the next attempt.
 */
export async function reserveSend(orm: Orm, req: SendRequest, inFlightRecheckMs: number): Promise<SendPermit> {
  const [row] = await orm.em.getConnection().execute<{ permit: 'send' | 'later'; send_at: Date | null; retry_in_ms: number | null; held_by: 'rate' | 'in_flight' | null; leased: boolean }[]>(
    `select permit, send_at, retry_in_ms, held_by, leased from webhook_reserve_send(?, ?, ?, ?, ?, ?, ?, ?)`,
    [req.deliveryId, req.attempt, req.endpointId, req.timeoutSeconds, Math.round(inFlightRecheckMs), WAIT_IN_ATTEMPT_MS, COME_BACK_EARLY_MS, LEASE_MARGIN_MS],
  );
  if (row.permit === 'later') return { kind: 'later', retryInMs: Math.max(1, Number(row.retry_in_ms)), why: row.held_by ?? 'rate' };
  return { kind: 'send', sendAtMs: new Date(row.send_at!).getTime(), leased: row.leased };
}

/** The send is answered (or abandoned): its in-flight place is free. */
export async function releaseSend(orm: Orm, deliveryId: string, attempt: number): Promise<void> {
  await orm.em.getConnection().execute(`delete from webhook_send_leases where delivery_id = ? and attempt = ?`, [deliveryId, attempt]);
}

