import type { Environment } from '../../domain/environment';
import type { Orm } from '../orm';

export interface EventPage {
  bodies: string[];
  hasMore: boolean;
  lastSequence: number | null;
}

/** Oldest first, strictly after `afterSequence`. */
export async function eventsAfter(orm: Orm, merchantId: string, environment: Environment, afterSequence: number, limit: number): Promise<EventPage> {
  const rows = await orm.em.getConnection().execute<{ body: string; sequence: string }[]>(
    `select body, sequence from events where merchant_id = ? and environment = ? and sequence > ? order by sequence asc limit ?`,
    [merchantId, environment, afterSequence, limit + 1],
  );
  return page(rows, limit);
}

/** Newest first, strictly before `beforeSequence` when given. */
export async function eventsNewestFirst(orm: Orm, merchantId: string, environment: Environment, beforeSequence: number | null, limit: number): Promise<EventPage> {
  const rows = await orm.em.getConnection().execute<{ body: string; sequence: string }[]>(
    `select body, sequence from events where merchant_id = ? and environment = ? and (?::bigint is null or sequence < ?::bigint)
     order by sequence desc limit ?`,
    [merchantId, environment, beforeSequence, beforeSequence, limit + 1],
  );
  return page(rows, limit);
}

function page(rows: { body: string; sequence: string }[], limit: number): EventPage {
  const kept = rows.slice(0, limit);
  return {
    bodies: kept.map((r) => r.body),
    hasMore: rows.length > limit,
    lastSequence: kept.length ? Number(kept[kept.length - 1].sequence) : null,
  };
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
