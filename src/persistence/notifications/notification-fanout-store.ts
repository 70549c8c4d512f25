import type { Environment } from '../../domain/environment';
import type { NotificationKind, NotificationSubject } from '../../notifications/notification-kinds';
import type { Orm } from '../orm';
import { TEXT_ARRAY } from '../sql-values';

/** An event the relay claimed from `notification_outbox`, with what its fan-out needs. */
export interface OutboxEvent {
  id: string;
  merchantId: string;
  environment: Environment;
  type: string;
  resourceId: string;
  /** The event's `data.channel` (a charge's channel: a phone number is a contact for mobile money only). */
  channel: string | null;
  merchantHasEmail: boolean;
  /** The charge's customer identifier, sealed (payment_parties), for a receipt; null when none was kept. */
  partySealed: string | null;
}

/** A notification row as the relay writes it. */
export interface NotificationDraft extends NotificationSubject {
  toMasked: string | null;
  status: 'pending' | 'skipped';
  /** Why it is skipped. */
  reason: string | null;
}

/** A pending notification whose workflow is to be started. */
export interface NotificationToStart {
  id: string;
  merchantId: string;
  environment: Environment;
  kind: NotificationKind;
}

/** The claim (parameters: lease seconds, batch); exported for its plan test (test/system/relay-claim-plans.test.ts). */
export const CLAIM_OUTBOX_SQL = `with claimed as (
       update notification_outbox set lease_until = date_trunc('milliseconds', now() + make_interval(secs => ?))
       where event_id = any(array(select event_id from notification_outbox where lease_until is null or lease_until < now()
                                  order by created_at, event_id limit ? for update skip locked))
       returning event_id, lease_until)
     select c.event_id, c.lease_until, e.merchant_id, e.environment, e.type, e.resource_id, (e.body::jsonb #>> '{data,channel}') as channel,
            m.notification_email is not null as merchant_has_email, p.party_sealed
     from claimed c
     left join events e on e.id = c.event_id
     left join merchants m on m.id = e.merchant_id
     left join payment_parties p on p.payment_id = e.resource_id and e.type = 'transaction.succeeded'`;

/**
 * Claims up to `batch` events of the outbox for `leaseSeconds` (oldest first; `for update skip
 * locked`, so relays of several workers share the work and never hold the same event), with their
 * merchant's email presence and, for a receipt, the customer's sealed identifier. Reads the index
 * notification_outbox_claim (created_at, event_id) in order and stops at the batch, then updates the rows
 * it chose by primary key (`= any(array(…))`: never a scan of the outbox, however small) (issue 34). `leaseUntil` names
 * this claim exactly (millisecond precision), so a failed pass releases only its own.
 */
export async function claimOutboxEvents(orm: Orm, leaseSeconds: number, batch: number): Promise<{ events: OutboxEvent[]; claimed: string[]; leaseUntil: Date | null }> {
  const rows = await orm.em.getConnection().execute<Array<Record<string, unknown>>>(
    CLAIM_OUTBOX_SQL,
    [leaseSeconds, batch],
  );
  const events = rows
    .filter((r) => r.merchant_id !== null)
    .map((r) => ({
      id: r.event_id as string,
      merchantId: r.merchant_id as string,
      environment: r.environment as Environment,
      type: r.type as string,
      resourceId: r.resource_id as string,
      channel: (r.channel as string | null) ?? null,
      merchantHasEmail: r.merchant_has_email === true,
      partySealed: (r.party_sealed as string | null) ?? null,
    }));
  return { events, claimed: rows.map((r) => r.event_id as string), leaseUntil: rows[0] ? (rows[0].lease_until as Date) : null };
}

/**
 * Writes the drafts (a row that exists already is left as it is) and returns those to start: the
 * pending ones written now, and any pending one of the same sources an earlier pass wrote but did not
 * confirm started. One statement: the insert's own rows come from RETURNING, the earlier ones from
 * the table as it was before the insert.
 */
export async function writeNotifications(orm: Orm, drafts: NotificationDraft[], sourceIds: string[]): Promise<NotificationToStart[]> {
  const earlier = `select id, merchant_id, environment, kind from notifications
     where source_id = any(${TEXT_ARRAY}) and status = 'pending' and attempt_count = 0 and workflow_started_at is null`;
  const conn = orm.em.getConnection();
  const rows =
    drafts.length === 0
      ? await conn.execute<Array<Record<string, unknown>>>(earlier, [JSON.stringify(sourceIds)])
      : await conn.execute<Array<Record<string, unknown>>>(
          `with v (id, merchant_id, environment, kind, recipient, source_id, resource_id, channel, to_masked, status, last_error) as (
             values ${drafts.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}),
           written as (
             insert into notifications (id, merchant_id, environment, kind, recipient, source_id, resource_id, channel, to_masked, status, last_error,
               created_at, updated_at, completed_at)
             select v.id, v.merchant_id, v.environment, v.kind, v.recipient, v.source_id, v.resource_id, v.channel, v.to_masked, v.status, v.last_error,
               date_trunc('milliseconds', now()), now(), case when v.status = 'skipped' then now() end
             from v
             on conflict do nothing
             returning id, status)
           select v.id, v.merchant_id, v.environment, v.kind from written join v on v.id = written.id where written.status = 'pending'
           union all
           ${earlier}`,
          [...drafts.flatMap((d) => [d.id, d.merchantId, d.environment, d.kind, d.recipient, d.sourceId, d.resourceId, d.channel, d.toMasked, d.status, d.reason]), JSON.stringify(sourceIds)],
        );
  return rows.map(toStart);
}

function toStart(r: Record<string, unknown>): NotificationToStart {
  return { id: r.id as string, merchantId: r.merchant_id as string, environment: r.environment as Environment, kind: r.kind as NotificationKind };
}

/** The pass succeeded: its started notifications confirmed and its events taken out of the outbox, in one statement. */
export async function finishOutboxEvents(orm: Orm, eventIds: string[], startedIds: string[]): Promise<void> {
  await orm.em.getConnection().execute(
    `with confirmed as (update notifications set workflow_started_at = now() where id = any(${TEXT_ARRAY}) and workflow_started_at is null)
     delete from notification_outbox where event_id = any(${TEXT_ARRAY})`,
    [JSON.stringify(startedIds), JSON.stringify(eventIds)],
  );
}

/** The pass failed: the starts it did confirm are recorded, its claim given back (unless another relay took the events over meanwhile). */
export async function releaseOutboxEvents(orm: Orm, eventIds: string[], leaseUntil: Date, startedIds: string[]): Promise<void> {
  const conn = orm.em.getConnection();
  await markNotificationsStarted(orm, startedIds);
  await conn.execute(`update notification_outbox set lease_until = null where event_id = any(${TEXT_ARRAY}) and lease_until = ?`, [JSON.stringify(eventIds), leaseUntil]);
}

export async function markNotificationsStarted(orm: Orm, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await orm.em.getConnection().execute(`update notifications set workflow_started_at = now() where id = any(${TEXT_ARRAY}) and workflow_started_at is null`, [JSON.stringify(ids)]);
}

/** Pending notifications never confirmed started, older than `olderThanSeconds` (a pass cut short after its events were finished, a crash). */
export async function findUnstartedNotifications(orm: Orm, olderThanSeconds: number, batch: number): Promise<NotificationToStart[]> {
  const rows = await orm.em.getConnection().execute<Array<Record<string, unknown>>>(
    `select id, merchant_id, environment, kind from notifications
     where status = 'pending' and workflow_started_at is null and created_at < now() - make_interval(secs => ?)
     order by created_at limit ?`,
    [olderThanSeconds, batch],
  );
  return rows.map(toStart);
}

/** An open dispute whose evidence is due soon and whose merchant has not been reminded yet. */
export interface DueDispute {
  id: string;
  merchantId: string;
  environment: Environment;
  merchantHasEmail: boolean;
}

/**
 * Disputes still waiting for evidence (`needs_response`) whose `evidence_due_by` is in the future and
 * within `withinMs`, that have no merchant notification of their own yet (index disputes_open_deadline).
 */
export async function findDueDisputes(orm: Orm, withinMs: number, batch: number): Promise<DueDispute[]> {
  const rows = await orm.em.getConnection().execute<Array<Record<string, unknown>>>(
    `select d.id, d.merchant_id, d.environment, m.notification_email is not null as merchant_has_email
     from disputes d join merchants m on m.id = d.merchant_id
     where d.status = 'needs_response' and d.evidence_due_by > now() and d.evidence_due_by <= now() + make_interval(secs => ?)
       and not exists (select 1 from notifications n where n.source_id = d.id and n.recipient = 'merchant')
     order by d.evidence_due_by limit ?`,
    [withinMs / 1000, batch],
  );
  return rows.map((r) => ({ id: r.id as string, merchantId: r.merchant_id as string, environment: r.environment as Environment, merchantHasEmail: r.merchant_has_email === true }));
}
