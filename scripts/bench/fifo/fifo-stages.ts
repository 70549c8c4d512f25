import type { Orm } from '../../../src/persistence/orm';
import { fmt, percentile } from '../shared/stats';
import type { FifoRequest } from './fifo-receiver';

/**
 * Where one event's turn goes, the FIFO being one send at a time (p50 / mean ms over the endpoint's
 * events; the mean is what the rate is made of):
 * `send`, the attempt's attempted_at (when the in-turn execution started it; for a head's retry, when
 * the workflow scheduled it) → the receiver's 2xx; `record`, that 2xx → the delivery recorded
 * succeeded (its updated_at); `next`, recorded → the next event's attempt (within one execution; a
 * workflow task, a queue read and a new execution every 50).
 */
export async function fifoStages(orm: Orm, endpointId: string, requests: readonly FifoRequest[]): Promise<string> {
  const rows = await orm.em.getConnection().execute<{ event_id: string; attempted_at: Date; updated_at: Date }[]>(
    `select d.event_id, a.attempted_at, d.updated_at from webhook_deliveries d
     join webhook_attempts a on a.delivery_id = d.id and a.attempt = d.attempt_count
     where d.endpoint_id = ? and d.status = 'succeeded' order by d.fifo_sequence`,
    [endpointId],
  );
  const answered = new Map<string, number>();
  for (const r of requests) if (r.status === 200 && !answered.has(r.eventId)) answered.set(r.eventId, r.answeredAtMs);
  const send: number[] = [];
  const record: number[] = [];
  const next: number[] = [];
  for (const [i, row] of rows.entries()) {
    const at = answered.get(row.event_id);
    if (at === undefined) continue;
    send.push(at - new Date(row.attempted_at).getTime());
    record.push(new Date(row.updated_at).getTime() - at);
    const following = rows[i + 1];
    if (following) next.push(new Date(following.attempted_at).getTime() - new Date(row.updated_at).getTime());
  }
  const both = (xs: number[]) => `${fmt(percentile([...xs].sort((a, b) => a - b), 50), 0)}/${fmt(xs.reduce((sum, x) => sum + x, 0) / xs.length, 0)}`;
  return `${both(send)}, ${both(record)}, ${both(next)}`;
}
