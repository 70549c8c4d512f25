import type { Invariant } from '../types';
import { rows } from './sql';

/**
 * Every merchant's event log, per environment: sequences 1..N, no gap, no repeat (the idea of
 * src/chaos/checks/events.ts), and each (resource, event type) recorded once: the dedupe key
 * `<resource id>:<type>` makes a second one a defect. One grouped query each.
 */
export const eventSequencesGapless: Invariant = {
  name: 'every merchant event sequence gapless',
  async check(ctx) {
    const logs = await rows<{ merchant_id: string; environment: string; n: string; distinct_n: string; min: string | null; max: string | null }>(
      ctx,
      `select merchant_id, environment, count(*)::text as n, count(distinct sequence)::text as distinct_n, min(sequence)::text as min, max(sequence)::text as max
         from events group by merchant_id, environment
       having count(*) <> count(distinct sequence) or min(sequence) <> 1 or max(sequence) <> count(distinct sequence)
       order by merchant_id, environment`,
    );
    const lines: string[] = [];
    for (const s of logs) {
      if (s.n !== s.distinct_n) lines.push(`${s.merchant_id} ${s.environment}: ${Number(s.n) - Number(s.distinct_n)} repeated sequence number(s)`);
      if (s.min !== '1' || s.max !== s.distinct_n) lines.push(`${s.merchant_id} ${s.environment}: sequences ${s.min}..${s.max} for ${s.distinct_n} distinct events (a gap)`);
    }
    const counters = await rows<{ merchant_id: string; environment: string; counter: string; max: string | null }>(
      ctx,
      `select c.merchant_id, c.environment, c.last_sequence::text as counter, max(e.sequence)::text as max
         from event_counters c left join events e using (merchant_id, environment)
       group by c.merchant_id, c.environment, c.last_sequence having c.last_sequence is distinct from coalesce(max(e.sequence), 0)`,
    );
    for (const c of counters) lines.push(`${c.merchant_id} ${c.environment}: the event counter says ${c.counter}, the log ends at ${c.max ?? 'nothing'}`);
    const twice = await rows<{ merchant_id: string; type: string; resource_id: string; n: string }>(
      ctx,
      `select merchant_id, type, resource_id, count(*)::text as n from events group by merchant_id, type, resource_id having count(*) > 1 order by merchant_id, resource_id`,
    );
    for (const t of twice) lines.push(`${t.merchant_id}: ${t.type} of ${t.resource_id} recorded ${t.n} times`);
    return lines;
  },
};
