import type { RetentionBatchRequest, RetentionBatchResult } from '../domain/retention';
import { deleteExpiredIdempotencyKeys } from './idempotency-store';
import type { Orm } from './orm';

/**
 * One retention batch per statement (src/domain/retention.ts says what goes and what stays). Each
 * statement picks at most `batch` rows past the window, oldest first through an index where the
 * table has one, `FOR UPDATE SKIP LOCKED` (a row someone holds right now is left for the next run),
 * and deletes them with their dependent rows in the same statement: a batch holds its row locks for
 * one short statement, never across batches.
 */
export async function deleteRetentionBatch(orm: Orm, request: RetentionBatchRequest): Promise<RetentionBatchResult> {
  const { kind, windowMs, batch } = request;
  if (!Number.isInteger(batch) || batch < 1) throw new Error(`retention batch must be a positive integer, got ${batch}`);
  if (!(windowMs > 0)) throw new Error(`retention window of ${kind} must be positive, got ${windowMs}`);
  const seconds = Math.floor(windowMs / 1000);
  switch (kind) {
    case 'webhook_deliveries':
      return deleteDeliveries(orm, seconds, batch);
    case 'idempotency_keys': {
      const rows = await deleteExpiredIdempotencyKeys(orm, seconds, batch);
      return { rows, deleted: { idempotency_keys: rows } };
    }
    case 'rate_limits':
      return deleteRateLimits(orm, windowMs, batch);
    case 'notifications':
      return deleteNotifications(orm, seconds, batch);
    default:
      throw new Error(`unknown retention kind ${String(kind satisfies never)}`);
  }
}

const execute = <T extends object[]>(orm: Orm, query: string, params: unknown[]) => orm.em.getConnection().execute<T>(query, params);

/**
 * Ended deliveries (never `pending`: a delivery waiting for its retry is pending) created before the
 * window, that no replay refers to (a replay's `replay_of`; the replays go first, in an earlier batch,
 * once they are past the window and ended themselves), with all their attempts. The attempts and the
 * delivery go in one statement, so a kept delivery keeps every attempt.
 */
async function deleteDeliveries(orm: Orm, seconds: number, batch: number): Promise<RetentionBatchResult> {
  const [row] = await execute<{ deliveries: number; attempts: number }[]>(
    orm,
    `with doomed as (
       select d.id from webhook_deliveries d
       where d.created_at < now() - make_interval(secs => ?) and d.status <> 'pending'
         and not exists (select 1 from webhook_deliveries r where r.replay_of = d.id)
       order by d.created_at limit ? for update of d skip locked),
     attempts as (delete from webhook_attempts a using doomed where a.delivery_id = doomed.id returning 1),
     deliveries as (delete from webhook_deliveries d using doomed where d.id = doomed.id returning 1)
     select (select count(*) from deliveries)::int as deliveries, (select count(*) from attempts)::int as attempts`,
    [seconds, batch],
  );
  return { rows: Number(row.deliveries), deleted: { webhook_deliveries: Number(row.deliveries), webhook_attempts: Number(row.attempts) } };
}

/**
 * Rate-limit counters (`expire` in epoch milliseconds) that expired more than the window ago. The
 * table is written on every request, so it carries no index on `expire` (each counter update would
 * then update an index too): a batch takes the first expired rows a scan meets, not the oldest.
 */
async function deleteRateLimits(orm: Orm, windowMs: number, batch: number): Promise<RetentionBatchResult> {
  const [row] = await execute<{ n: number }[]>(
    orm,
    `with doomed as (
       select key from rate_limits where expire < (extract(epoch from now()) * 1000)::bigint - ?
       limit ? for update skip locked),
     deleted as (delete from rate_limits r using doomed where r.key = doomed.key returning 1)
     select count(*)::int as n from deleted`,
    [Math.floor(windowMs), batch],
  );
  return { rows: Number(row.n), deleted: { rate_limits: Number(row.n) } };
}

/**
 * Ended notifications (sent, failed, skipped; never `pending`) created before the window, with all
 * their attempts. A dispute's deadline reminder stays while its dispute still waits for evidence:
 * the relay writes a reminder for such a dispute when it has none (notification-fanout-store.ts
 * findDueDisputes), so deleting it could send it twice.
 */
async function deleteNotifications(orm: Orm, seconds: number, batch: number): Promise<RetentionBatchResult> {
  const [row] = await execute<{ notifications: number; attempts: number }[]>(
    orm,
    `with doomed as (
       select n.id from notifications n
       where n.created_at < now() - make_interval(secs => ?) and n.status <> 'pending'
         and not (n.kind = 'dispute_deadline' and exists (select 1 from disputes d where d.id = n.source_id and d.status = 'needs_response'))
       order by n.created_at limit ? for update of n skip locked),
     attempts as (delete from notification_attempts a using doomed where a.notification_id = doomed.id returning 1),
     notifications as (delete from notifications n using doomed where n.id = doomed.id returning 1)
     select (select count(*) from notifications)::int as notifications, (select count(*) from attempts)::int as attempts`,
    [seconds, batch],
  );
  return { rows: Number(row.notifications), deleted: { notifications: Number(row.notifications), notification_attempts: Number(row.attempts) } };
}
