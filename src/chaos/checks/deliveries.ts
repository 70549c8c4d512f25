import type { InjectedFault } from '../faults';
import { result, type CheckContext, type CheckResult } from './check';

/** Faults that can make a send unrecorded (the process that sent it died or stopped before recording it). */
const MAY_RESEND: ReadonlySet<InjectedFault['kind']> = new Set(['kill_worker', 'kill_service_postgres', 'kill_temporal', 'pause_process']);

/**
 * Every event of a merchant's sandbox log from its endpoint's creation on reached the receiver with
 * a 2xx answer at least once, and every request the receiver got carried a signature that verifies
 * with that endpoint's secret (src/verifier). A delivery answered 2xx and sent again is a duplicate
 * send, unless a fault between the two could have lost the record of the first.
 */
export async function checkDeliveries(ctx: CheckContext): Promise<CheckResult> {
  const violations: string[] = [];
  let checked = 0;
  let duplicates = 0;
  for (const m of ctx.merchants) {
    const events = await ctx.db.rows<{ id: string; type: string; sequence: string }>(
      `select e.id, e.type, e.sequence::text from events e join webhook_endpoints w on w.id = $2
        where e.merchant_id = $1 and e.environment = 'sandbox' and e.created_at >= w.created_at order by e.sequence`,
      [m.id, m.endpointId],
    );
    const received = ctx.receiver.received.filter((r) => r.endpoint === m.endpointName);
    const ok = new Set(received.filter((r) => r.verified && r.answered >= 200 && r.answered < 300).map((r) => r.eventId));
    for (const e of events) {
      checked++;
      if (!ok.has(e.id)) violations.push(`${m.id}: ${e.type} ${e.id} (sequence ${e.sequence}) never received with a 2xx answer`);
    }
    for (const r of received.filter((x) => !x.verified)) violations.push(`${m.id}: delivery ${r.deliveryId} of ${r.eventId} (attempt ${r.attempt}): signature did not verify: ${r.problem}`);
    const byDelivery = new Map<string, number[]>();
    for (const r of received) if (r.deliveryId && r.answered >= 200 && r.answered < 300) byDelivery.set(r.deliveryId, [...(byDelivery.get(r.deliveryId) ?? []), r.at]);
    for (const [deliveryId, times] of byDelivery) {
      if (times.length < 2) continue;
      duplicates++;
      const first = Math.min(...times);
      const last = Math.max(...times);
      const excused = ctx.faults.some((f) => MAY_RESEND.has(f.kind) && f.startedAt <= last && (f.recoveredAt ?? Infinity) >= first);
      if (!excused) violations.push(`${m.id}: delivery ${deliveryId} answered 2xx and sent again ${times.length - 1} time(s) with no fault in between (a duplicate send)`);
    }
  }
  const bad = ctx.receiver.received.filter((r) => r.answered < 200 || r.answered >= 300).length;
  return result('every event delivered to every endpoint, signatures verified', checked, violations, [
    `${ctx.receiver.received.length} requests received (${bad} answered badly on purpose), ${duplicates} deliveries answered 2xx more than once (each after a fault that may lose the record of a send)`,
  ]);
}
