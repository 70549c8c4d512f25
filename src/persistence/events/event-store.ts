import type { Environment } from '../../domain/environment';
import type { Orm } from '../orm';

export interface EventPage {
  bodies: string[];
  hasMore: boolean;
  lastSequence: number | null;
  /** When the page's first event (the one right after the walk's position, of the filter's types when filtered) was created; null: empty page. */
  firstCreatedAt: Date | null;
}

/**
 * Only events of these types (null: every type). A filtered page reads each type's events from index
 * events_by_type (merchant_id, environment, type, sequence), at most a page of each, and merges them
 * by sequence: a rare type is a few index probes, not a walk of the merchant's whole log.
 */
export type EventTypeFilter = readonly string[] | null;

/** The events of `types` on either side of a position, merged: one LATERAL page per type (index events_by_type). */
const byTypes = (direction: 'asc' | 'desc', position: string) =>
  `select e.body, e.sequence, e.created_at from jsonb_array_elements_text(?::jsonb) as wanted(event_type)
   cross join lateral (
     select body, sequence, created_at from events where merchant_id = ? and environment = ? and events.type = wanted.event_type and ${position}
     order by sequence ${direction} limit ?) e
   order by e.sequence ${direction} limit ?`;

/** Oldest first, strictly after `afterSequence`; only `types` when given. */
export async function eventsAfter(orm: Orm, merchantId: string, environment: Environment, afterSequence: number, limit: number, types: EventTypeFilter = null): Promise<EventPage> {
  const conn = orm.em.getConnection();
  const rows = types
    ? await conn.execute<EventRow[]>(byTypes('asc', 'sequence > ?'), [JSON.stringify(types), merchantId, environment, afterSequence, limit + 1, limit + 1])
    : await conn.execute<EventRow[]>(
        `select body, sequence, created_at from events where merchant_id = ? and environment = ? and sequence > ? order by sequence asc limit ?`,
        [merchantId, environment, afterSequence, limit + 1],
      );
  return page(rows, limit);
}

/** Newest first, strictly before `beforeSequence` when given; only `types` when given. */
export async function eventsNewestFirst(orm: Orm, merchantId: string, environment: Environment, beforeSequence: number | null, limit: number, types: EventTypeFilter = null): Promise<EventPage> {
  const conn = orm.em.getConnection();
  const rows = types
    ? await conn.execute<EventRow[]>(byTypes('desc', '(?::bigint is null or sequence < ?::bigint)'), [JSON.stringify(types), merchantId, environment, beforeSequence, beforeSequence, limit + 1, limit + 1])
    : await conn.execute<EventRow[]>(
        `select body, sequence, created_at from events where merchant_id = ? and environment = ? and (?::bigint is null or sequence < ?::bigint)
     order by sequence desc limit ?`,
        [merchantId, environment, beforeSequence, beforeSequence, limit + 1],
      );
  return page(rows, limit);
}

type EventRow = { body: string; sequence: string; created_at: Date | string };

function page(rows: EventRow[], limit: number): EventPage {
  const kept = rows.slice(0, limit);
  return {
    bodies: kept.map((r) => r.body),
    hasMore: rows.length > limit,
    lastSequence: kept.length ? Number(kept[kept.length - 1].sequence) : null,
    firstCreatedAt: kept.length ? new Date(kept[0].created_at) : null,
  };
}

/**
 * The first sequence after `afterSequence` whose event was created at or after `since` (the walkable
 * window's start), or null when none is: where a walk that fell behind the window may go on. A binary
 * search over the gapless sequences (index probes on (merchant_id, environment, sequence), about 20
 * for a million events), taking creation times as rising with the sequence (they do, but for events
 * a workflow dated a moment before an earlier one committed: then the answer is off by those few).
 *
 * It takes no type filter: the window is a place in the log, not a set of types. The sequence it
 * names is where every walk, filtered or not, is back inside the window (a walk by `type` from it
 * answers that type's events from there on), so a filtered walk resumes from the same answer.
 */
export async function firstSequenceSince(orm: Orm, merchantId: string, environment: Environment, afterSequence: number, since: Date): Promise<number | null> {
  const conn = orm.em.getConnection();
  const [counter] = await conn.execute<{ last_sequence: string }[]>(`select last_sequence from event_counters where merchant_id = ? and environment = ?`, [merchantId, environment]);
  if (!counter) return null;
  const createdAt = async (sequence: number): Promise<Date | null> => {
    const rows = await conn.execute<{ created_at: Date | string }[]>(`select created_at from events where merchant_id = ? and environment = ? and sequence = ?`, [merchantId, environment, sequence]);
    return rows[0] ? new Date(rows[0].created_at) : null;
  };
  let lo = afterSequence + 1;
  let hi = Number(counter.last_sequence);
  const last = await createdAt(hi);
  if (lo > hi || !last || last < since) return null;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const at = await createdAt(mid);
    if (at && at >= since) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The events about one object (`resource_id`: a payment's id) of a merchant's environment, oldest
 * first, at most `limit` (+1 read, to tell there are more): a payment's timeline (index events_resource).
 */
export async function eventsOfResource(orm: Orm, merchantId: string, environment: Environment, resourceId: string, limit: number): Promise<{ bodies: string[]; hasMore: boolean }> {
  const rows = await orm.em.getConnection().execute<{ body: string }[]>(
    `select body from events where merchant_id = ? and environment = ? and resource_id = ? order by sequence limit ?`,
    [merchantId, environment, resourceId, limit + 1],
  );
  return { bodies: rows.slice(0, limit).map((r) => r.body), hasMore: rows.length > limit };
}

/** One event's stored body (the bytes GET /v1/events answers) by id, or null: unknown, or another merchant's or environment's. */
export async function findEventBody(orm: Orm, merchantId: string, environment: Environment, id: string): Promise<string | null> {
  const rows = await orm.em.getConnection().execute<{ body: string }[]>(`select body from events where id = ? and merchant_id = ? and environment = ?`, [id, merchantId, environment]);
  return rows[0]?.body ?? null;
}
