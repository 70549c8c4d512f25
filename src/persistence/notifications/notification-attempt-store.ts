import { safeText } from '../../domain/response-excerpt';
import type { Environment } from '../../domain/environment';
import type { NotificationChannel, NotificationKind, NotificationSubject, Recipient } from '../../notifications/notification-kinds';
import type { Orm } from '../orm';

export type NotificationStatus = 'pending' | 'sent' | 'failed' | 'skipped';

/** An attempt as recorded: what every execution of that attempt answers. */
export interface RecordedNotificationAttempt {
  outcome: 'sent' | 'failed';
  error: string | null;
  /** The wait recorded with a failure; null after a send or the last (or a permanent) failure. */
  retryInMs: number | null;
  providerMessageId: string | null;
}

/** A notification as its attempt reads it, and this attempt if it was recorded already. */
export interface NotificationContext extends NotificationSubject {
  status: NotificationStatus;
  lastError: string | null;
  createdAt: Date;
  recorded: RecordedNotificationAttempt | null;
}

export async function loadNotificationContext(orm: Orm, notificationId: string, attempt: number): Promise<NotificationContext | null> {
  const rows = await orm.em.getConnection().execute<Array<Record<string, unknown>>>(
    `select n.id, n.merchant_id, n.environment, n.kind, n.recipient, n.source_id, n.resource_id, n.channel, n.status, n.last_error, n.created_at,
            a.outcome, a.error, a.retry_in_ms, a.provider_message_id
     from notifications n left join notification_attempts a on a.notification_id = n.id and a.attempt = ?
     where n.id = ?`,
    [attempt, notificationId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id as string,
    merchantId: r.merchant_id as string,
    environment: r.environment as Environment,
    kind: r.kind as NotificationKind,
    recipient: r.recipient as Recipient,
    sourceId: r.source_id as string,
    resourceId: r.resource_id as string,
    channel: (r.channel as NotificationChannel | null) ?? null,
    status: r.status as NotificationStatus,
    lastError: (r.last_error as string | null) ?? null,
    createdAt: new Date(r.created_at as string),
    recorded: r.outcome ? recordedOf(r) : null,
  };
}

function recordedOf(r: Record<string, unknown>): RecordedNotificationAttempt {
  return {
    outcome: r.outcome as 'sent' | 'failed',
    error: (r.error as string | null) ?? null,
    retryInMs: (r.retry_in_ms as number | null) ?? null,
    providerMessageId: (r.provider_message_id as string | null) ?? null,
  };
}

/** What a message is made from, read in one query: always of the notification's own merchant and environment. */
export interface MessageParts {
  merchantName: string;
  merchantEmail: string | null;
  /** The resource as the API shows it: the event's `data`, or the dispute for its deadline reminder. */
  resource: Record<string, unknown>;
  occurredAt: string;
  /** Decimals of the resource's currency (2 when the currency is not in the reference list). */
  minorUnits: number;
  /** The charge's customer identifier, sealed; receipts only. */
  partySealed: string | null;
  /** For a deadline reminder: whether the dispute still waits for evidence. */
  disputeOpen: boolean;
}

/**
 * The parts of a notification's message: from its event (`evt_…`) or, for a deadline reminder, its
 * dispute (`dp_…`), joined on the notification's merchant and environment, so nothing of another
 * environment can ever be read into it. Null when the source is gone.
 */
export async function loadMessageParts(orm: Orm, n: NotificationContext): Promise<MessageParts | null> {
  const conn = orm.em.getConnection();
  if (n.kind === 'dispute_deadline') {
    const rows = await conn.execute<Array<Record<string, unknown>>>(
      `select d.id, d.status, d.amount::text as amount, d.currency, d.charge_id, d.reason, d.evidence_due_by, d.created_at,
              m.name, m.notification_email, c.minor_units
       from disputes d join merchants m on m.id = d.merchant_id left join currencies c on c.code = d.currency
       where d.id = ? and d.merchant_id = ? and d.environment = ?`,
      [n.sourceId, n.merchantId, n.environment],
    );
    const r = rows[0];
    if (!r) return null;
    const due = r.evidence_due_by ? new Date(r.evidence_due_by as string).toISOString() : null;
    return {
      merchantName: r.name as string,
      merchantEmail: (r.notification_email as string | null) ?? null,
      resource: { id: r.id, object: 'dispute', status: r.status, amount: r.amount, currency: r.currency, charge: r.charge_id, reason: r.reason, evidence_due_by: due },
      occurredAt: new Date().toISOString(),
      minorUnits: (r.minor_units as number | null) ?? 2,
      partySealed: null,
      disputeOpen: r.status === 'needs_response' && due !== null,
    };
  }
  if (n.kind === 'settlement_account_changed') return accountChangeParts(orm, n);
  if (n.kind === 'portal_password_reset') return passwordResetParts(orm, n);
  const rows = await conn.execute<Array<Record<string, unknown>>>(
    `select e.body, e.created_at, m.name, m.notification_email, c.minor_units, p.party_sealed
     from events e
     join merchants m on m.id = e.merchant_id
     left join currencies c on c.code = (e.body::jsonb #>> '{data,currency}')
     left join payment_parties p on p.payment_id = e.resource_id and ? = 'customer'
     where e.id = ? and e.merchant_id = ? and e.environment = ?`,
    [n.recipient, n.sourceId, n.merchantId, n.environment],
  );
  const r = rows[0];
  if (!r) return null;
  const event = JSON.parse(r.body as string) as { data?: Record<string, unknown>; created_at?: string };
  return {
    merchantName: r.name as string,
    merchantEmail: (r.notification_email as string | null) ?? null,
    resource: event.data ?? {},
    occurredAt: event.created_at ?? new Date(r.created_at as string).toISOString(),
    minorUnits: (r.minor_units as number | null) ?? 2,
    partySealed: (r.party_sealed as string | null) ?? null,
    disputeOpen: false,
  };
}

/**
 * A replaced settlement account's email (issue 43): from the change's operator_audit row (its source),
 * of the notification's own merchant: the account before and after (bank and masked number only, as
 * the row keeps them), when, by which operator, and the hold's end.
 */
async function accountChangeParts(orm: Orm, n: NotificationContext): Promise<MessageParts | null> {
  const rows = await orm.em.getConnection().execute<Array<Record<string, unknown>>>(
    `select a.operator, a.created_at, a.state_before, a.state_after, m.name, m.notification_email
     from operator_audit a join merchants m on m.id = a.merchant_id
     where a.id = ? and a.merchant_id = ? and a.action = 'merchant.settings_update'`,
    [n.sourceId, n.merchantId],
  );
  const r = rows[0];
  if (!r) return null;
  const json = (v: unknown): Record<string, unknown> => ((typeof v === 'string' ? JSON.parse(v) : v) ?? {}) as Record<string, unknown>;
  const before = json(r.state_before);
  const after = json(r.state_after);
  const occurredAt = new Date(r.created_at as string).toISOString();
  return {
    merchantName: r.name as string,
    merchantEmail: (r.notification_email as string | null) ?? null,
    resource: { id: n.merchantId, object: 'merchant', previous_account: before.settlement_account ?? null, settlement_account: after.settlement_account ?? null, operator: r.operator, changed_at: occurredAt, held_until: after.settlement_held_until ?? null },
    occurredAt,
    minorUnits: 2,
    partySealed: null,
    disputeOpen: false,
  };
}

/**
 * A portal password reset's email (issue 47): from the reset's row (its source), only while the
 * reset is still usable (else null: skipped), of the notification's own merchant. It goes to the
 * portal user's own email (in `merchantEmail`: the merchant-side address the message goes to), and
 * its resource holds the link still sealed (`link_sealed`), opened by the sender only.
 */
async function passwordResetParts(orm: Orm, n: NotificationContext): Promise<MessageParts | null> {
  const rows = await orm.em.getConnection().execute<Array<Record<string, unknown>>>(
    `select r.link_sealed, r.expires_at, u.email, m.name
     from portal_password_resets r join portal_users u on u.id = r.user_id join merchants m on m.id = u.merchant_id
     where r.id = ? and u.merchant_id = ? and r.link_sealed is not null and r.used_at is null and r.superseded_at is null and r.expires_at > now() and u.disabled_at is null`,
    [n.sourceId, n.merchantId],
  );
  const r = rows[0];
  if (!r) return null;
  const expiresAt = new Date(r.expires_at as string).toISOString();
  return {
    merchantName: r.name as string,
    merchantEmail: r.email as string,
    resource: { object: 'portal_password_reset', email: r.email, link_sealed: r.link_sealed, expires_at: expiresAt },
    occurredAt: new Date().toISOString(),
    minorUnits: 2,
    partySealed: null,
    disputeOpen: false,
  };
}

/** Nothing to send (no address, the dispute answered meanwhile): closed as skipped, never retried. */
export async function markNotificationSkipped(orm: Orm, notificationId: string, reason: string): Promise<void> {
  await orm.em.getConnection().execute(
    `update notifications set status = 'skipped', last_error = ?, completed_at = now(), updated_at = now() where id = ? and status = 'pending'`,
    [safeText(reason), notificationId],
  );
}

export interface NotificationAttemptResult {
  notificationId: string;
  attempt: number;
  attemptedAt: Date;
  outcome: 'sent' | 'failed';
  error: string | null;
  /** The wait before the next attempt; null: this failure is the last (schedule over, or permanent). */
  retryInMs: number | null;
  providerMessageId: string | null;
}

/**
 * Records one attempt and the notification's state in one statement: `sent` once, `failed` after the
 * last attempt, else still `pending` with the error. Recording the same attempt twice changes
 * nothing, and both calls answer what was recorded first (two executions of one attempt must not
 * disagree). A notification already closed is not reopened.
 */
export async function recordNotificationAttempt(orm: Orm, a: NotificationAttemptResult): Promise<{ inserted: boolean; recorded: RecordedNotificationAttempt }> {
  const error = a.error === null ? null : safeText(a.error);
  const providerMessageId = a.providerMessageId === null ? null : safeText(a.providerMessageId);
  const conn = orm.em.getConnection();
  const rows = await conn.execute<Array<Record<string, unknown>>>(
    `with ins as (
       insert into notification_attempts (notification_id, attempt, attempted_at, outcome, error, retry_in_ms, provider_message_id)
       values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing
       returning notification_id, attempt, outcome, error, retry_in_ms, provider_message_id),
     upd as (
       update notifications n set
         status = case when ins.outcome = 'sent' then 'sent' when ins.retry_in_ms is null then 'failed' else 'pending' end,
         attempt_count = greatest(n.attempt_count, ins.attempt),
         last_error = ins.error,
         provider_message_id = coalesce(ins.provider_message_id, n.provider_message_id),
         completed_at = case when ins.outcome = 'sent' or ins.retry_in_ms is null then now() end,
         updated_at = now()
       from ins where n.id = ins.notification_id and n.status = 'pending'
       returning n.id)
     select outcome, error, retry_in_ms, provider_message_id from ins`,
    [a.notificationId, a.attempt, a.attemptedAt, a.outcome, error, a.retryInMs, providerMessageId],
  );
  if (rows[0]) return { inserted: true, recorded: recordedOf(rows[0]) };
  // Another execution recorded this attempt first; the insert waited for its commit, and this new
  // statement (a new snapshot) sees what it recorded.
  const existing = await conn.execute<Array<Record<string, unknown>>>(
    `select outcome, error, retry_in_ms, provider_message_id from notification_attempts where notification_id = ? and attempt = ?`,
    [a.notificationId, a.attempt],
  );
  if (!existing[0]) throw new Error(`notification ${a.notificationId} attempt ${a.attempt}: neither recorded nor found`);
  return { inserted: false, recorded: recordedOf(existing[0]) };
}
