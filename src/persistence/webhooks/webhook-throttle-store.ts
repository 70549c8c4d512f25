import { COME_BACK_EARLY_MS, LEASE_MARGIN_MS, slotSpacingMs, WAIT_IN_ATTEMPT_MS } from '../../domain/webhook-throttle';
import type { Orm } from '../orm';

/** What the throttle lets one attempt do now (issue 49). */
export type SendPermit =
  /** Send after `waitMs` (within WAIT_IN_ATTEMPT_MS); `leased`: a place of max_in_flight is held until releaseSend. */
  | { kind: 'send'; waitMs: number; leased: boolean }
  /** Not now: the attempt comes back in `retryInMs` (its reserved slot, or a look at the in-flight places again). */
  | { kind: 'later'; retryInMs: number; why: 'rate' | 'in_flight' };

export interface SendRequest {
  deliveryId: string;
  attempt: number;
  endpointId: string;
  timeoutSeconds: number;
}

const ms = (d: Date | string) => new Date(d).getTime();

/**
 * The earliest instant, from `at`, at which the second before it holds fewer than `max` of the sends
 * let go (`recent`): `at` itself when it already does.
 */
export function windowWaitMs(recent: number[], at: number, max: number): number {
  const within = recent.filter((t) => t > at - 1000).sort((a, b) => a - b);
  return within.length < max ? at : within[within.length - max]! + 1000;
}

/**
 * The throttle's decision for one attempt, in one transaction on the endpoint's row (locked, so
 * every process's sends to it take their turns from one schedule), with the database's clock:
 *
 * - `max_per_second`: the attempt keeps the slot it reserved before (a retry that came back for it),
 *   else reserves the endpoint's next free slot (`throttle_next_at`, moved on by 1 / max_per_second).
 *   A slot further away than WAIT_IN_ATTEMPT_MS answers `later`, COME_BACK_EARLY_MS before that slot;
 *   it stays reserved. A due slot also waits for the second before the send to hold fewer than
 *   max_per_second sends (`throttle_recent`), so a send that came late does not bunch with the next.
 * - `max_in_flight`: leases of sends under way (expired ones dropped); all places taken answers
 *   `later` (the slot, if any, is kept); else a lease until the send's timeout plus LEASE_MARGIN_MS.
 *
 * The limits are read from the row here, so a PATCH applies to the next attempt.
 */
export async function reserveSend(orm: Orm, req: SendRequest, inFlightRecheckMs: number): Promise<SendPermit> {
  return orm.em.fork().transactional(async (em) => {
    const [endpoint] = await em.execute<{ max_per_second: number | null; max_in_flight: number | null; throttle_next_at: Date | null; throttle_recent: Array<Date | string>; now: Date }[]>(
      `select max_per_second, max_in_flight, throttle_next_at, throttle_recent, clock_timestamp() as now from webhook_endpoints where id = ? for update`,
      [req.endpointId],
    );
    if (!endpoint) return { kind: 'send', waitMs: 0, leased: false };
    const now = ms(endpoint.now);
    let waitMs = 0;
    if (endpoint.max_per_second !== null) {
      const [delivery] = await em.execute<{ throttle_slot_at: Date | null; throttle_slot_attempt: number | null }[]>(
        `select throttle_slot_at, throttle_slot_attempt from webhook_deliveries where id = ?`,
        [req.deliveryId],
      );
      let slot = delivery?.throttle_slot_attempt === req.attempt && delivery.throttle_slot_at ? ms(delivery.throttle_slot_at) : null;
      if (slot === null) {
        slot = Math.max(endpoint.throttle_next_at ? ms(endpoint.throttle_next_at) : now, now);
        const next = new Date(slot + slotSpacingMs(endpoint.max_per_second));
        await em.execute(`update webhook_endpoints set throttle_next_at = ? where id = ?`, [next, req.endpointId]);
        await em.execute(`update webhook_deliveries set throttle_slot_at = ?, throttle_slot_attempt = ? where id = ?`, [new Date(slot), req.attempt, req.deliveryId]);
      }
      waitMs = Math.max(0, slot - now);
      if (waitMs > WAIT_IN_ATTEMPT_MS) return { kind: 'later', retryInMs: waitMs - COME_BACK_EARLY_MS, why: 'rate' };
      // The slot is due; a send that came late for it still waits for the second before it to hold
      // fewer than max_per_second sends, so late ones do not bunch with those on time.
      waitMs = Math.max(waitMs, windowWaitMs(endpoint.throttle_recent.map(ms), now + waitMs, endpoint.max_per_second) - now);
      if (waitMs > WAIT_IN_ATTEMPT_MS) return { kind: 'later', retryInMs: waitMs - COME_BACK_EARLY_MS, why: 'rate' };
      const sendAt = now + waitMs;
      const recent = [...endpoint.throttle_recent.map(ms).filter((t) => t > sendAt - 1000), sendAt].sort((a, b) => a - b);
      await em.execute(`update webhook_endpoints set throttle_recent = ?::timestamptz[] where id = ?`, [`{${recent.map((t) => `"${new Date(t).toISOString()}"`).join(',')}}`, req.endpointId]);
    }
    if (endpoint.max_in_flight === null) return { kind: 'send', waitMs, leased: false };
    await em.execute(`delete from webhook_send_leases where endpoint_id = ? and expires_at <= ?`, [req.endpointId, endpoint.now]);
    const [held] = await em.execute<{ mine: boolean; n: string }[]>(
      `select count(*) as n, bool_or(delivery_id = ? and attempt = ?) as mine from webhook_send_leases where endpoint_id = ?`,
      [req.deliveryId, req.attempt, req.endpointId],
    );
    if (!held?.mine && Number(held?.n ?? 0) >= endpoint.max_in_flight) return { kind: 'later', retryInMs: Math.max(waitMs, inFlightRecheckMs), why: 'in_flight' };
    const expiresAt = new Date(now + waitMs + req.timeoutSeconds * 1000 + LEASE_MARGIN_MS);
    await em.execute(
      `insert into webhook_send_leases (delivery_id, attempt, endpoint_id, expires_at) values (?, ?, ?, ?)
       on conflict (delivery_id, attempt) do update set expires_at = excluded.expires_at`,
      [req.deliveryId, req.attempt, req.endpointId, expiresAt],
    );
    return { kind: 'send', waitMs, leased: true };
  });
}

/** The send is answered (or abandoned): its in-flight place is free. */
export async function releaseSend(orm: Orm, deliveryId: string, attempt: number): Promise<void> {
  await orm.em.getConnection().execute(`delete from webhook_send_leases where delivery_id = ? and attempt = ?`, [deliveryId, attempt]);
}
