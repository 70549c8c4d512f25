import type { Invariant } from '../types';
import { rows } from './sql';

/**
 * Every delivery signed and recorded:
 * - every request a receiver got carried a signature that verifies with its endpoint's secret (the
 *   receivers check it: `signatureOk`);
 * - every request received is a recorded attempt: per event, the requests received are at most the
 *   attempts recorded over that event's deliveries (an attempt may be recorded for a request that
 *   never arrived, a refused connection; a request that arrived unrecorded is a send nobody knows of);
 * - every delivery row has its attempts: attempts 1..attempt_count, each recorded once; a succeeded
 *   delivery ends with its one succeeded attempt, a pending or failed one has none.
 * Two queries (the first only over the events the receivers saw).
 */
export const deliveriesRecorded: Invariant = {
  name: 'every delivery signed and recorded',
  async check(ctx) {
    const received = ctx.receivers.received();
    const lines: string[] = [];
    for (const r of received) if (!r.signatureOk) lines.push(`receiver ${r.receiver}: a request for event ${r.eventId} at ${new Date(r.at).toISOString()} carried no valid signature`);
    const byEvent = new Map<string, number>();
    for (const r of received) byEvent.set(r.eventId, (byEvent.get(r.eventId) ?? 0) + 1);
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
