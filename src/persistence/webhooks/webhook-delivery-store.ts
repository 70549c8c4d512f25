import { deliveryJson, type DeliveryAttemptRecord, type DeliveryRecord, type DeliveryStatus } from '../../domain/webhook-delivery';
import type { ChangeActor } from '../../domain/operator-action';
import { recordChange } from '../operators/change-audit';
import { ENVIRONMENTS, type Environment } from '../../domain/environment';
import type { Orm } from '../orm';
import { iso, isoOrNull, TEXT_ARRAY, type ListCursor } from '../sql-values';
import type { Owner } from './webhook-endpoint-store';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  merchant_id: string;
  environment: Environment;
  event_type: string;
  replay_of: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
  /** bigint: the driver's string. */
  fifo_sequence: string | null;
}

interface AttemptRow {
  attempt: number;
  attempted_at: Date;
  outcome: 'succeeded' | 'failed';
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
}

export const DELIVERY_COLUMNS = `id, endpoint_id, event_id, merchant_id, environment, event_type, replay_of, status, attempt_count, next_attempt_at,
  last_status_code, last_error, created_at, completed_at, fifo_sequence`;

export function deliveryFromRow(r: DeliveryRow): DeliveryRecord {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    merchantId: r.merchant_id,
    environment: r.environment,
    eventType: r.event_type,
    replayOf: r.replay_of,
    status: r.status,
    attemptCount: r.attempt_count,
    nextAttemptAt: isoOrNull(r.next_attempt_at),
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    createdAt: iso(r.created_at),
    completedAt: isoOrNull(r.completed_at),
    fifoSequence: r.fifo_sequence === null ? null : Number(r.fifo_sequence),
  };
}

function attemptFromRow(r: AttemptRow): DeliveryAttemptRecord {
  return {
    attempt: r.attempt,
    attemptedAt: iso(r.attempted_at),
    outcome: r.outcome,
    statusCode: r.status_code,
    durationMs: r.duration_ms,
    error: r.error,
    responseBody: r.response_body,
  };
}

export async function findDelivery(orm: Orm, owner: Owner, id: string): Promise<{ delivery: DeliveryRecord; attempts: DeliveryAttemptRecord[] } | null> {
  const conn = orm.em.getConnection();
  const rows = await conn.execute<DeliveryRow[]>(
    `select ${DELIVERY_COLUMNS} from webhook_deliveries where id = ? and merchant_id = ? and environment = ?`,
    [id, owner.merchantId, owner.environment],
  );
  if (!rows[0]) return null;
  const attempts = await conn.execute<AttemptRow[]>(
    `select attempt, attempted_at, outcome, status_code, duration_ms, error, response_body from webhook_attempts where delivery_id = ? order by attempt`,
    [id],
  );
  return { delivery: deliveryFromRow(rows[0]), attempts: attempts.map(attemptFromRow) };
}

/** Filters of an endpoint's deliveries beyond its status: the deliveries of some event types, created within a range. */
export interface DeliveryFilters {
  /** Only these event types (absent: every type). */
  eventTypes?: readonly string[];
  /** ISO 8601 instants, both exclusive (src/services/list-filters.ts createdRange), as sent: PostgreSQL reads the offset. */
  createdAfter?: string;
  createdBefore?: string;
}

/**
 * An endpoint's deliveries, newest first, optionally one status only and `filters`. The filters are
 * conditions on each row in the list's own order (created_at desc, id desc), so the cursor (the last
 * row shown) pages them as it pages the whole list: the client sends the same filters with it.
 */
export async function listDeliveries(
  orm: Orm,
  owner: Owner,
  endpointId: string,
  status: DeliveryStatus | null,
  limit: number,
  after: ListCursor | null,
  filters: DeliveryFilters = {},
): Promise<DeliveryRecord[]> {
  const types = filters.eventTypes?.length ? JSON.stringify(filters.eventTypes) : null;
  const rows = await orm.em.getConnection().execute<DeliveryRow[]>(
    `select ${DELIVERY_COLUMNS} from webhook_deliveries
     where endpoint_id = ? and merchant_id = ? and environment = ? and (?::text is null or status = ?)
       and (?::jsonb is null or event_type = any(${TEXT_ARRAY}))
       and (?::timestamptz is null or created_at > ?::timestamptz)
       and (?::timestamptz is null or created_at < ?::timestamptz)
       and (?::timestamptz is null or (created_at, id) < (?::timestamptz, ?))
     order by created_at desc, id desc limit ?`,
    [
      endpointId, owner.merchantId, owner.environment, status, status,
      types, types,
      filters.createdAfter ?? null, filters.createdAfter ?? null,
      filters.createdBefore ?? null, filters.createdBefore ?? null,
      after?.createdAt ?? null, after?.createdAt ?? null, after?.id ?? null, limit + 1,
    ],
  );
  return rows.map(deliveryFromRow);
}

/**
 * A replay: a new pending delivery of the same event to the same endpoint. Inserting an id again returns the row.
 * With an actor, the row and its `webhook_delivery.replay` audit row (subject: the new delivery;
 * before: the original, after: the replay) commit in one transaction; inserting an id again writes no
 * second audit row.
 */
export async function insertReplay(orm: Orm, original: DeliveryRecord, id: string, actor?: ChangeActor): Promise<DeliveryRecord> {
  if (!actor) return (await insertReplayWith((sql, params) => orm.em.getConnection().execute(sql, params), original, id)).replay;
  return orm.em.fork().transactional(async (em) => {
    const { replay, inserted } = await insertReplayWith((sql, params) => em.execute(sql, params), original, id);
    if (inserted) {
      await recordChange(em, actor, {
        action: 'webhook_delivery.replay',
        subjectId: replay.id,
        merchantId: replay.merchantId,
        environment: replay.environment,
        before: deliveryJson(original),
        after: deliveryJson(replay),
      });
    }
    return replay;
  });
}

type Execute = (sql: string, params: unknown[]) => Promise<unknown>;

async function insertReplayWith(execute: Execute, original: DeliveryRecord, id: string): Promise<{ replay: DeliveryRecord; inserted: boolean }> {
  const inserted = (await execute(
    `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, replay_of, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, 'pending', date_trunc('milliseconds', now()), now()) on conflict (id) do nothing returning 1`,
    [id, original.endpointId, original.eventId, original.merchantId, original.environment, original.eventType, original.id],
  )) as unknown[];
  const rows = (await execute(`select ${DELIVERY_COLUMNS} from webhook_deliveries where id = ?`, [id])) as DeliveryRow[];
  return { replay: deliveryFromRow(rows[0]), inserted: inserted.length > 0 };
}

/** The deliveries' workflows are known to exist: the relay's sweep leaves them alone. */
export async function markWorkflowsStarted(orm: Orm, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await orm.em.getConnection().execute(
    `update webhook_deliveries set workflow_started_at = now() where id = any(${TEXT_ARRAY}) and workflow_started_at is null`,
    [JSON.stringify(ids)],
  );
}

/** What starting a delivery's workflow needs, straight from its row. */
export type UnstartedDelivery = Pick<DeliveryRow, 'id' | 'endpoint_id' | 'event_id' | 'merchant_id' | 'environment' | 'event_type'> & {
  /** The endpoint's timeout_seconds when the row was read (null: endpoint gone), for the first attempt's shape. */
  timeout_seconds: number | null;
  /** Issue 49: the endpoint has max_per_second or max_in_flight (its first attempt is not run locally: a local one would only hand it over). */
  throttled: boolean;
  /** Issue 49: set for a delivery of a FIFO endpoint's queue, which its endpoint's FIFO workflow sends (not a workflow of its own). */
  fifo_sequence: string | null;
};

/**
 * Pending deliveries with no attempt whose workflow was never confirmed started, older than
 * `olderThanSeconds` (younger ones are still being started by whoever created them), oldest first.
 */
export async function findUnstartedDeliveries(orm: Orm, olderThanSeconds: number, limit: number, environments: readonly Environment[] = ENVIRONMENTS): Promise<UnstartedDelivery[]> {
  return orm.em.getConnection().execute<UnstartedDelivery[]>(
    `select d.id, d.endpoint_id, d.event_id, d.merchant_id, d.environment, d.event_type, w.timeout_seconds, d.fifo_sequence,
       coalesce(w.max_per_second is not null or w.max_in_flight is not null, false) as throttled
     from webhook_deliveries d left join webhook_endpoints w on w.id = d.endpoint_id
     where d.status = 'pending' and d.attempt_count = 0 and d.workflow_started_at is null and d.created_at < now() - make_interval(secs => ?)
       and d.environment = any(${TEXT_ARRAY})
     order by d.created_at limit ?`,
    [olderThanSeconds, JSON.stringify(environments), limit],
  );
}
