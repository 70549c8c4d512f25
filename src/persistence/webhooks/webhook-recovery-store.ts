import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../../domain/environment';
import type { ChangeActor } from '../../domain/operator-action';
import { recoveryJson, type RecoveryRecord } from '../../domain/webhook-recovery';
import { newId } from '../../support/new-id';
import { firstSequenceSince } from '../events/event-store';
import { recordChange } from '../operators/change-audit';
import type { Orm } from '../orm';
import { iso, isoOrNull, TEXT_ARRAY } from '../sql-values';
import type { Owner } from './webhook-endpoint-store';

/**
 * Webhook recoveries (issue 49; src/domain/webhook-recovery.ts): the row, its resends' live counts,
 * and one page of the walk. A resend is a replay delivery (as `insertReplay` writes one: `replay_of`
 * the event's last delivery to the endpoint, pending, attempts from 1) with `recovery_id`; the unique
 * index (recovery_id, event_id) keeps one resend per event within one recovery, whatever retries.
 */

interface RecoveryRow {
  id: string;
  endpoint_id: string;
  merchant_id: string;
  environment: Environment;
  since: Date;
  total: number;
  queued: number;
  queued_at: Date | null;
  created_at: Date;
  succeeded: string;
  failed: string;
  skipped: string;
  pending: string;
  last_ended_at: Date | null;
}

const RECOVERY_SELECT = `select r.id, r.endpoint_id, r.merchant_id, r.environment, r.since, r.total, r.queued, r.queued_at, r.created_at,
    c.succeeded, c.failed, c.skipped, c.pending, c.last_ended_at
  from webhook_recoveries r
  cross join lateral (
    select count(*) filter (where d.status = 'succeeded') as succeeded, count(*) filter (where d.status = 'failed') as failed,
      count(*) filter (where d.status = 'skipped') as skipped, count(*) filter (where d.status = 'pending') as pending,
      max(d.completed_at) as last_ended_at
    from webhook_deliveries d where d.recovery_id = r.id) c`;

function recoveryFromRow(r: RecoveryRow): RecoveryRecord {
  const queuedAt = isoOrNull(r.queued_at);
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    merchantId: r.merchant_id,
    environment: r.environment,
    since: iso(r.since),
    progress: {
      // Exact once every resend is queued; until then the count made when the recovery was asked.
      total: queuedAt !== null ? r.queued : Math.max(r.total, r.queued),
      queued: r.queued,
      succeeded: Number(r.succeeded),
      failed: Number(r.failed),
      skipped: Number(r.skipped),
      pending: Number(r.pending),
    },
    queuedAt,
    lastEndedAt: isoOrNull(r.last_ended_at),
    createdAt: iso(r.created_at),
  };
}

/**
 * The events a recovery resends, counted from the endpoint's failed and skipped deliveries (index
 * webhook_deliveries_endpoint_status: the rows of those two statuses only): each such delivery that is
 * its event's last to the endpoint, of an event in the range and of a type the endpoint subscribes to.
 */
async function countCandidates(em: EntityManager, r: { endpointId: string; merchantId: string; environment: Environment; since: string; after: number; until: number }): Promise<number> {
  const [row] = await em.execute<{ n: string }[]>(
    `select count(*) as n
     from webhook_deliveries d
     join events e on e.id = d.event_id
     join webhook_endpoints w on w.id = d.endpoint_id
     where d.endpoint_id = ? and d.status in ('failed', 'skipped') and d.created_at >= ?::timestamptz
       and e.merchant_id = ? and e.environment = ? and e.sequence > ? and e.sequence <= ? and e.created_at >= ?::timestamptz
       and (cardinality(w.subscribed_events) = 0 or e.type = any(w.subscribed_events))
       and not exists (select 1 from webhook_deliveries l where l.event_id = d.event_id and l.endpoint_id = d.endpoint_id and l.replay_of is null
                         and (l.created_at, l.replay_of is not null, l.id) > (d.created_at, d.replay_of is not null, d.id))
       and not exists (select 1 from webhook_deliveries l where l.event_id = d.event_id and l.endpoint_id = d.endpoint_id and l.replay_of is not null
                         and (l.created_at, l.replay_of is not null, l.id) > (d.created_at, d.replay_of is not null, d.id))`,
    [r.endpointId, r.since, r.merchantId, r.environment, r.after, r.until, r.since],
  );
  return Number(row.n);
}

/**
 * A new recovery of `endpointId` (the caller's, active: the service checked) and its
 * `webhook_endpoint.recover` audit row, in one transaction. The range it walks is fixed here: from the
 * first event at or after `since` to the merchant's last event now (later events are fanned out as
 * usual). Inserting an id again (a retried request with the same Idempotency-Key) returns the row and
 * writes no second audit row.
 */
export async function insertRecovery(orm: Orm, owner: Owner, endpointId: string, id: string, since: string, actor: ChangeActor): Promise<RecoveryRecord> {
  const conn = orm.em.getConnection();
  const [counter] = await conn.execute<{ last_sequence: string }[]>(`select last_sequence from event_counters where merchant_id = ? and environment = ?`, [owner.merchantId, owner.environment]);
  const until = counter ? Number(counter.last_sequence) : 0;
  const first = until > 0 ? await firstSequenceSince(orm, owner.merchantId, owner.environment, 0, new Date(since)) : null;
  const after = first === null ? until : Math.min(first - 1, until);
  return orm.em.fork().transactional(async (em) => {
    const total = await countCandidates(em, { endpointId, merchantId: owner.merchantId, environment: owner.environment, since, after, until });
    const inserted = await em.execute<unknown[]>(
      `insert into webhook_recoveries (id, endpoint_id, merchant_id, environment, since, after_sequence, until_sequence, cursor_sequence, total, created_at)
       values (?, ?, ?, ?, ?::timestamptz, ?, ?, ?, ?, date_trunc('milliseconds', now())) on conflict (id) do nothing returning 1`,
      [id, endpointId, owner.merchantId, owner.environment, since, after, until, after, total],
    );
    const [row] = await em.execute<RecoveryRow[]>(`${RECOVERY_SELECT} where r.id = ?`, [id]);
    const recovery = recoveryFromRow(row);
    if (inserted.length > 0) {
      await recordChange(em, actor, {
        action: 'webhook_endpoint.recover',
        subjectId: id,
        merchantId: owner.merchantId,
        environment: owner.environment,
        before: null,
        after: { ...recoveryJson(recovery), events_after_sequence: after, events_until_sequence: until },
      });
    }
    return recovery;
  });
}

/** One recovery of one endpoint of the caller's, with its live counts; null when not theirs. */
export async function findRecovery(orm: Orm, owner: Owner, endpointId: string, id: string): Promise<RecoveryRecord | null> {
  const [row] = await orm.em
    .getConnection()
    .execute<RecoveryRow[]>(`${RECOVERY_SELECT} where r.id = ? and r.endpoint_id = ? and r.merchant_id = ? and r.environment = ?`, [id, endpointId, owner.merchantId, owner.environment]);
  return row ? recoveryFromRow(row) : null;
}

/** A recovery by id alone (the CLI's `webhooks recovery whr_…`: an operator sees every merchant's). */
export async function findRecoveryById(orm: Orm, id: string): Promise<RecoveryRecord | null> {
  const [row] = await orm.em.getConnection().execute<RecoveryRow[]>(`${RECOVERY_SELECT} where r.id = ?`, [id]);
  return row ? recoveryFromRow(row) : null;
}

/** An endpoint's latest recoveries, newest first (the portal's endpoint page). */
export async function listRecoveries(orm: Orm, owner: Owner, endpointId: string, limit: number): Promise<RecoveryRecord[]> {
  const rows = await orm.em.getConnection().execute<RecoveryRow[]>(
    `${RECOVERY_SELECT} where r.endpoint_id = ? and r.merchant_id = ? and r.environment = ? order by r.created_at desc, r.id desc limit ?`,
    [endpointId, owner.merchantId, owner.environment, limit],
  );
  return rows.map(recoveryFromRow);
}

/** What starting a resend's workflow needs. */
export interface RecoveryResend {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  merchant_id: string;
  environment: Environment;
}

/** One page: the range of sequences it covers, what it inserted, and whether the walk is done. */
export interface RecoveryPage {
  from: number;
  to: number;
  inserted: number;
  /** The recovery's resends so far, this page's included. */
  queued: number;
  done: boolean;
  merchantId: string;
  environment: Environment;
  timeoutSeconds: number;
}

/** The recovery's id is unknown (never written, or its row was removed): nothing to walk. */
export class RecoveryNotFound extends Error {
  override name = 'RecoveryNotFound';
}

/**
 * One page of a recovery's walk, in one transaction with the recovery row locked: the events after
 * `after` (null: the range's start) up to `scan` events further, oldest first, whose last delivery to
 * the endpoint is failed or skipped (and whose type the endpoint subscribes to), at most `limit`; a
 * resend for each; the row's cursor, counts and (when the range is walked) `queued_at` and exact total.
 *
 * A page repeated after its commit (the activity retried) finds the cursor past `after`: it inserts
 * nothing and answers the range it covered, whose resends the caller then starts.
 */
export async function recoveryPage(orm: Orm, id: string, after: number | null, limit: number, scan: number): Promise<RecoveryPage> {
  return orm.em.fork().transactional(async (em) => {
    const [r] = await em.execute<
      { endpoint_id: string; merchant_id: string; environment: Environment; since: Date; after_sequence: string; until_sequence: string; cursor_sequence: string; queued: number; queued_at: Date | null; timeout_seconds: number }[]
    >(
      `select r.endpoint_id, r.merchant_id, r.environment, r.since, r.after_sequence, r.until_sequence, r.cursor_sequence, r.queued, r.queued_at, w.timeout_seconds
       from webhook_recoveries r join webhook_endpoints w on w.id = r.endpoint_id where r.id = ? for update of r`,
      [id],
    );
    if (!r) throw new RecoveryNotFound(`webhook recovery ${id} does not exist`);
    const from = after ?? Number(r.after_sequence);
    const cursor = Number(r.cursor_sequence);
    const until = Number(r.until_sequence);
    const page = { from, merchantId: r.merchant_id, environment: r.environment, timeoutSeconds: r.timeout_seconds };
    if (cursor > from || r.queued_at !== null) return { ...page, to: Math.max(cursor, from), inserted: 0, queued: r.queued, done: r.queued_at !== null || cursor >= until };
    const scanEnd = Math.min(until, from + scan);
    const candidates = await em.execute<{ event_id: string; sequence: string; type: string; last_id: string }[]>(
      `select e.id as event_id, e.sequence, e.type, last.id as last_id
       from events e
       join webhook_endpoints w on w.id = ?
       cross join lateral (
         select d.id, d.status from (
           select id, status, created_at, replay_of from webhook_deliveries where event_id = e.id and endpoint_id = w.id and replay_of is null
           union all
           select id, status, created_at, replay_of from webhook_deliveries where event_id = e.id and endpoint_id = w.id and replay_of is not null
         ) d order by d.created_at desc, (d.replay_of is not null) desc, d.id desc limit 1) last
       where e.merchant_id = ? and e.environment = ? and e.sequence > ? and e.sequence <= ? and e.created_at >= ?
         and (cardinality(w.subscribed_events) = 0 or e.type = any(w.subscribed_events))
         and last.status in ('failed', 'skipped')
       order by e.sequence limit ?`,
      [r.endpoint_id, r.merchant_id, r.environment, from, scanEnd, r.since, limit],
    );
    const to = candidates.length === limit ? Number(candidates[candidates.length - 1].sequence) : scanEnd;
    let inserted = 0;
    if (candidates.length > 0) {
      const rows = candidates.map((c) => ({ id: newId('delivery'), event_id: c.event_id, event_type: c.type, replay_of: c.last_id }));
      const written = await em.execute<unknown[]>(
        `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, replay_of, recovery_id, status, created_at, updated_at)
         select x.id, ?, x.event_id, ?, ?, x.event_type, x.replay_of, ?, 'pending', date_trunc('milliseconds', now()), now()
         from jsonb_to_recordset(?::jsonb) as x(id text, event_id text, event_type text, replay_of text)
         on conflict (recovery_id, event_id) where recovery_id is not null do nothing returning 1`,
        [r.endpoint_id, r.merchant_id, r.environment, id, JSON.stringify(rows)],
      );
      inserted = written.length;
    }
    const done = to >= until;
    await em.execute(
      `update webhook_recoveries set cursor_sequence = ?, queued = queued + ?, pages = pages + 1,
         queued_at = case when ? then date_trunc('milliseconds', now()) end, total = case when ? then queued + ? else total end
       where id = ?`,
      [to, inserted, done, done, inserted, id],
    );
    return { ...page, to, inserted, queued: r.queued + inserted, done };
  });
}

/** The resends of a page's range (`from` exclusive, `to` inclusive) whose workflow was never confirmed started. */
export async function unstartedResends(orm: Orm, id: string, page: Pick<RecoveryPage, 'from' | 'to' | 'merchantId' | 'environment'>): Promise<RecoveryResend[]> {
  return orm.em.getConnection().execute<RecoveryResend[]>(
    `select d.id, d.endpoint_id, d.event_id, d.event_type, d.merchant_id, d.environment
     from events e join webhook_deliveries d on d.recovery_id = ? and d.event_id = e.id
     where e.merchant_id = ? and e.environment = ? and e.sequence > ? and e.sequence <= ? and d.workflow_started_at is null and d.status = 'pending'
     order by e.sequence`,
    [id, page.merchantId, page.environment, page.from, page.to],
  );
}

/** A recovery whose workflow was never confirmed started (the relay's sweep). */
export interface UnstartedRecovery {
  id: string;
  endpoint_id: string;
  merchant_id: string;
  environment: Environment;
}

export async function findUnstartedRecoveries(orm: Orm, olderThanSeconds: number, limit: number, environments: readonly Environment[]): Promise<UnstartedRecovery[]> {
  return orm.em.getConnection().execute<UnstartedRecovery[]>(
    `select id, endpoint_id, merchant_id, environment from webhook_recoveries
     where workflow_started_at is null and created_at < now() - make_interval(secs => ?) and environment = any(${TEXT_ARRAY})
     order by created_at limit ?`,
    [olderThanSeconds, JSON.stringify(environments), limit],
  );
}

/** The recovery's workflow is known to exist: the sweep leaves it alone. */
export async function markRecoveryStarted(orm: Orm, id: string): Promise<void> {
  await orm.em.getConnection().execute(`update webhook_recoveries set workflow_started_at = now() where id = ? and workflow_started_at is null`, [id]);
}
