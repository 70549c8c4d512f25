import type { Invariant } from '../types';
import { rows } from './sql';

/**
 * Every delivery signed and recorded:
 * - every request a receiver got carried a signature that verifies with its endpoint's secret (the
 *   receivers check it: `signatureOk`, and `refusal` says why not);
 * - every request received is a recorded attempt. A request that names its delivery and attempt
 *   (X-Service-Delivery-Id, X-Service-Attempt) must match that attempt's row, of a delivery of the
 *   event it names: the same attempt sent twice (delivery is at least once: a send whose record was
 *   lost is sent again under the same number) is one row. A request without them is counted per
 *   event: the requests received at most the attempts recorded over that event's deliveries;
 * - every delivery row has its attempts: attempts 1..attempt_count, each recorded once; a succeeded
 *   delivery ends with its one succeeded attempt, a pending or failed one has none.
 * Two or three queries (the first ones only over what the receivers saw).
 */
export const deliveriesRecorded: Invariant = {
  name: 'every delivery signed and recorded',
  async check(ctx) {
    const received = ctx.receivers.received();
    const lines: string[] = [];
    for (const r of received) {
      if (r.signatureOk) continue;
      lines.push(`receiver ${r.receiver}: a request for event ${r.eventId}${r.deliveryId ? ` (delivery ${r.deliveryId}, attempt ${r.attempt})` : ''} at ${new Date(r.at).toISOString()} carried no valid signature${r.refusal ? `: ${r.refusal}` : ''}`);
    }
    const named = new Map<string, { delivery_id: string; attempt: number; event_id: string }>();
    const byEvent = new Map<string, number>();
    for (const r of received) {
      if (r.deliveryId && r.attempt) named.set(`${r.deliveryId}/${r.attempt}/${r.eventId}`, { delivery_id: r.deliveryId, attempt: r.attempt, event_id: r.eventId });
      else byEvent.set(r.eventId, (byEvent.get(r.eventId) ?? 0) + 1);
    }
    if (named.size > 0) {
      const missing = await rows<{ delivery_id: string; attempt: number; event_id: string; delivery_event: string | null }>(
        ctx,
        `select r.delivery_id, r.attempt, r.event_id, d.event_id as delivery_event
           from jsonb_to_recordset(?::jsonb) as r(delivery_id text, attempt int, event_id text)
           left join webhook_deliveries d on d.id = r.delivery_id
           left join webhook_attempts a on a.delivery_id = r.delivery_id and a.attempt = r.attempt
          where a.delivery_id is null or d.event_id is distinct from r.event_id
          order by r.delivery_id, r.attempt`,
        [JSON.stringify([...named.values()])],
      );
      for (const m of missing) {
        if (m.delivery_event === null) lines.push(`delivery ${m.delivery_id} (event ${m.event_id}): received, but no such delivery is recorded`);
        else if (m.delivery_event !== m.event_id) lines.push(`delivery ${m.delivery_id}: received for event ${m.event_id}, recorded for ${m.delivery_event}`);
        else lines.push(`delivery ${m.delivery_id} (event ${m.event_id}): attempt ${m.attempt} received, not recorded`);
      }
    }
    if (byEvent.size > 0) {
      const recorded = await rows<{ event_id: string; attempts: string }>(
        ctx,
        `select e.id as event_id, count(a.attempt)::text as attempts
           from jsonb_array_elements_text(?::jsonb) as e(id) left join webhook_deliveries d on d.event_id = e.id left join webhook_attempts a on a.delivery_id = d.id
          group by e.id`,
        [JSON.stringify([...byEvent.keys()])],
      );
      for (const r of recorded) {
        const got = byEvent.get(r.event_id)!;
        if (got > Number(r.attempts)) lines.push(`event ${r.event_id}: received ${got} time(s), ${r.attempts} attempt(s) recorded`);
      }
    }
    const deliveries = await rows<{ id: string; status: string; attempt_count: number; n: string; max: number | null; succeeded: string; last_outcome: string | null }>(
      ctx,
      `select d.id, d.status, d.attempt_count, count(a.attempt)::text as n, max(a.attempt) as max,
              count(*) filter (where a.outcome = 'succeeded')::text as succeeded,
              (array_agg(a.outcome order by a.attempt desc))[1] as last_outcome
         from webhook_deliveries d left join webhook_attempts a on a.delivery_id = d.id
        group by d.id
       having d.attempt_count <> count(a.attempt) or coalesce(max(a.attempt), 0) <> count(a.attempt)
           or (d.status = 'succeeded' and (count(*) filter (where a.outcome = 'succeeded') <> 1 or (array_agg(a.outcome order by a.attempt desc))[1] <> 'succeeded'))
           or (d.status in ('pending', 'failed') and count(*) filter (where a.outcome = 'succeeded') > 0)
        order by d.id`,
    );
    for (const d of deliveries) {
      lines.push(`delivery ${d.id} (${d.status}): attempt_count ${d.attempt_count}, ${d.n} attempt row(s) numbered up to ${d.max ?? 0}, ${d.succeeded} succeeded, the last ${d.last_outcome ?? 'none'}`);
    }
    return lines;
  },
};
