import { safeExcerpt, safeText } from '../../domain/response-excerpt';
import { shouldAutoDisable, type DisableRule } from '../../domain/webhook-health';
import type { Environment } from '../../domain/environment';
import type { SignatureScheme } from '../../domain/webhook-endpoint';
import { RESPONSE_EXCERPT_BYTES, type DeliveryStatus } from '../../domain/webhook-delivery';
import type { Orm } from '../orm';

/** An attempt as recorded: what every execution of that attempt answers. */
export interface RecordedAttempt {
  outcome: 'succeeded' | 'failed';
  statusCode: number | null;
  error: string | null;
  /** The wait recorded with it (Retry-After applied); null after a success or the last attempt. */
  retryInMs: number | null;
}

/** From a webhook_attempts row joined with its delivery's next_attempt_at. */
function recordedFromRow(r: Record<string, unknown>): RecordedAttempt {
  return {
    outcome: r.outcome as 'succeeded' | 'failed',
    statusCode: (r.status_code as number | null) ?? null,
    error: (r.error as string | null) ?? null,
    // Attempt n + 1 is not recorded before attempt n's activity has completed, so while an execution
    // of attempt n can still answer, the delivery's next_attempt_at is the one recorded with attempt n.
    retryInMs: r.outcome === 'failed' && r.next_attempt_at
      ? Math.max(0, new Date(r.next_attempt_at as string).getTime() - new Date(r.attempted_at as string).getTime())
      : null,
  };
}

/** Everything one attempt needs, read in one query. Secrets stay sealed until the sender opens them. */
export interface AttemptContext {
  deliveryId: string;
  deliveryStatus: DeliveryStatus;
  eventId: string;
  eventType: string;
  eventBody: string;
  eventSequence: number;
  endpointId: string;
  merchantId: string;
  environment: Environment;
  url: string;
  timeoutSeconds: number;
  /** How the endpoint's deliveries are signed (issue 49). */
  signatureScheme: SignatureScheme;
  /** The endpoint's throttle (issue 49), null: no limit. */
  maxPerSecond: number | null;
  maxInFlight: number | null;
  endpointStatus: 'active' | 'disabled';
  endpointDeleted: boolean;
  secretBox: string;
  previousSecretBox: string | null;
  previousSecretExpiresAt: Date | null;
  /** Secrets rotated out before the previous one, still within their overlap when rotated (issue 32), newest first. */
  retiredSecrets: Array<{ box: string; expiresAt: Date }>;
  /** Set when this attempt number was already recorded (a retried activity): it is not sent again. */
  recorded: RecordedAttempt | null;
}

export async function loadAttemptContext(orm: Orm, deliveryId: string, attempt: number): Promise<AttemptContext | null> {
  const rows = await orm.em.getConnection().execute<Record<string, never>[]>(
    `select d.id, d.merchant_id, d.status, d.event_id, d.event_type, e.body, e.sequence, w.id as endpoint_id, w.environment, w.url, w.timeout_seconds, w.signature_scheme, w.max_per_second, w.max_in_flight,
            w.status as endpoint_status, w.deleted_at, w.secret_box, w.previous_secret_box, w.previous_secret_expires_at, w.retired_secrets,
            a.outcome, a.status_code, a.error, a.attempted_at, d.next_attempt_at
     from webhook_deliveries d
     join events e on e.id = d.event_id
     join webhook_endpoints w on w.id = d.endpoint_id
     left join webhook_attempts a on a.delivery_id = d.id and a.attempt = ?
     where d.id = ?`,
    [attempt, deliveryId],
  );
  const r = rows[0] as Record<string, unknown> | undefined;
  if (!r) return null;
  return {
    deliveryId: r.id as string,
    deliveryStatus: r.status as DeliveryStatus,
    eventId: r.event_id as string,
    eventType: r.event_type as string,
    eventBody: r.body as string,
    eventSequence: Number(r.sequence),
    endpointId: r.endpoint_id as string,
    merchantId: r.merchant_id as string,
    environment: r.environment as Environment,
    url: r.url as string,
    timeoutSeconds: r.timeout_seconds as number,
    signatureScheme: r.signature_scheme as SignatureScheme,
    maxPerSecond: (r.max_per_second as number | null) ?? null,
    maxInFlight: (r.max_in_flight as number | null) ?? null,
    endpointStatus: r.endpoint_status as 'active' | 'disabled',
    endpointDeleted: r.deleted_at !== null,
    secretBox: r.secret_box as string,
    previousSecretBox: (r.previous_secret_box as string | null) ?? null,
    previousSecretExpiresAt: r.previous_secret_expires_at ? new Date(r.previous_secret_expires_at as string) : null,
    retiredSecrets: ((r.retired_secrets as Array<{ box: string; expires_at: string }> | null) ?? []).map((x) => ({ box: x.box, expiresAt: new Date(x.expires_at) })),
    recorded: r.outcome ? recordedFromRow(r) : null,
  };
}

/** Nothing was sent: the endpoint is disabled or deleted. The delivery stays replayable. */
export async function markDeliverySkipped(orm: Orm, deliveryId: string, reason: string): Promise<void> {
  await orm.em.getConnection().execute(
    `update webhook_deliveries set status = 'skipped', last_error = ?, next_attempt_at = null, completed_at = now(), updated_at = now()
     where id = ? and status = 'pending'`,
    [reason, deliveryId],
  );
}

export interface AttemptResult {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  /** Workflow time of the attempt: the health rule and records use it (time-skipping tests too). */
  attemptedAt: Date;
  outcome: 'succeeded' | 'failed';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  /** When the next attempt is due; null after the last one. */
  nextAttemptAt: Date | null;
  failureReason: string | null;
  /** When the POST was let go (issue 49: the throttle's instant for max_per_second); absent when nothing was sent. */
  sentAt?: Date | null;
}

/** What recording an attempt answers: the attempt as recorded, by this call or by another execution. */
export interface RecordOutcome {
  /** False when another execution of the same attempt recorded it first (`recorded` is its outcome). */
  inserted: boolean;
  recorded: RecordedAttempt;
  autoDisabled: boolean;
}

/**
 * Records one attempt, the delivery's state and the endpoint's health in one transaction. The
 * endpoint row is locked (FOR NO KEY UPDATE) so concurrent deliveries count the streak exactly; the
 * auto-disable rule is applied here. A success writes the endpoint row only when it ends a streak.
 * Recording the same attempt twice changes nothing, and both calls answer the outcome recorded first
 * (two executions of one attempt, e.g. after a heartbeat timeout, must not disagree). Text is made
 * storable (no NUL or other controls; the excerpt at most RESPONSE_EXCERPT_BYTES) whatever is passed.
 */
export async function recordAttempt(orm: Orm, a: AttemptResult, rule: DisableRule): Promise<RecordOutcome> {
  const error = a.error === null ? null : safeText(a.error);
  const responseBody = a.responseBody === null ? null : safeExcerpt(a.responseBody, RESPONSE_EXCERPT_BYTES);
  const failureReason = a.failureReason === null ? null : safeText(a.failureReason);
  if (a.outcome === 'succeeded') return recordSuccess(orm, a, error, responseBody);
  return orm.em.fork().transactional(async (em) => {
    const inserted = await em.execute<unknown[]>(
      `insert into webhook_attempts (delivery_id, attempt, attempted_at, outcome, status_code, duration_ms, error, response_body, sent_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning 1`,
      [a.deliveryId, a.attempt, a.attemptedAt, a.outcome, a.statusCode, a.durationMs, error, responseBody, a.sentAt ?? null],
    );
    if (inserted.length === 0) {
      // The conflicting insert waited for the winner's commit; this statement sees what it recorded.
      return recordedFirst((sql, params) => em.execute(sql, params), a);
    }
    const recorded: RecordedAttempt = {
      outcome: a.outcome,
      statusCode: a.statusCode,
      error,
      retryInMs: a.outcome === 'failed' && a.nextAttemptAt ? Math.max(0, a.nextAttemptAt.getTime() - a.attemptedAt.getTime()) : null,
    };
    const status: DeliveryStatus = a.nextAttemptAt ? 'pending' : 'failed';
    // From pending only (issue 49): a delivery skipped while this attempt was under way (a FIFO skip)
    // stays skipped; the attempt itself is recorded above.
    await em.execute(
      `update webhook_deliveries set status = ?, attempt_count = greatest(attempt_count, ?), next_attempt_at = ?, last_status_code = ?,
         last_error = ?, completed_at = case when ? = 'pending' then null else ?::timestamptz end, updated_at = now()
       where id = ? and status = 'pending'`,
      [status, a.attempt, a.nextAttemptAt, a.statusCode, error, status, a.attemptedAt, a.deliveryId],
    );
    const rows = await em.execute<{ status: string; consecutive_failures: number; failure_streak_started_at: Date | null }[]>(
      `select status, consecutive_failures, failure_streak_started_at from webhook_endpoints where id = ? for no key update`,
      [a.endpointId],
    );
    const failures = rows[0].consecutive_failures + 1;
    const streakStart = rows[0].failure_streak_started_at ? new Date(rows[0].failure_streak_started_at) : a.attemptedAt;
    const disable = rows[0].status === 'active' && shouldAutoDisable(rule, failures, streakStart.getTime(), a.attemptedAt.getTime());
    await em.execute(
      `update webhook_endpoints set consecutive_failures = ?, failure_streak_started_at = ?, last_failure_reason = ?, last_failure_at = ?,
         status = case when ?::boolean then 'disabled' else status end, auto_disabled_at = case when ?::boolean then ?::timestamptz else auto_disabled_at end,
         updated_at = case when ?::boolean then now() else updated_at end
       where id = ?`,
      [failures, streakStart, failureReason, a.attemptedAt, disable, disable, a.attemptedAt, disable, a.endpointId],
    );
    return { inserted: true, recorded, autoDisabled: disable };
  });
}

/**
 * A success, the common case, in one statement (one round trip instead of five; issue 19): the
 * attempt row, the delivery's state and, only when it ends a streak, the endpoint's health, each
 * written only when the attempt row was inserted. One statement is one transaction, as before.
 */
async function recordSuccess(orm: Orm, a: AttemptResult, error: string | null, responseBody: string | null): Promise<RecordOutcome> {
  const conn = orm.em.getConnection();
  const rows = await conn.execute<{ inserted: number }[]>(
    `with ins as (
       insert into webhook_attempts (delivery_id, attempt, attempted_at, outcome, status_code, duration_ms, error, response_body, sent_at)
       values (?, ?, ?, 'succeeded', ?, ?, ?, ?, ?) on conflict do nothing returning 1),
     delivery as (
       update webhook_deliveries set status = 'succeeded', attempt_count = greatest(attempt_count, ?), next_attempt_at = null, last_status_code = ?,
         last_error = ?, completed_at = ?::timestamptz, updated_at = now()
       where id = ? and exists (select 1 from ins) returning 1),
     endpoint as (
       update webhook_endpoints set consecutive_failures = 0, failure_streak_started_at = null
       where id = ? and (consecutive_failures > 0 or failure_streak_started_at is not null) and exists (select 1 from ins) returning 1)
     select (select count(*) from ins)::int as inserted`,
    [a.deliveryId, a.attempt, a.attemptedAt, a.statusCode, a.durationMs, error, responseBody, a.sentAt ?? null, a.attempt, a.statusCode, error, a.attemptedAt, a.deliveryId, a.endpointId],
  );
  if (rows[0].inserted === 1) return { inserted: true, recorded: { outcome: 'succeeded', statusCode: a.statusCode, error, retryInMs: null }, autoDisabled: false };
  // Another execution recorded this attempt first (its insert committed before ours gave up): answer what it recorded.
  return recordedFirst((sql, params) => conn.execute(sql, params), a);
}

/** What another execution of the same attempt recorded first: `recordAttempt`'s answer when its insert found the row there. */
async function recordedFirst(run: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>, a: AttemptResult): Promise<RecordOutcome> {
  const rows = await run(
    `select a.outcome, a.status_code, a.error, a.attempted_at, d.next_attempt_at
     from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
     where a.delivery_id = ? and a.attempt = ?`,
    [a.deliveryId, a.attempt],
  );
  return { inserted: false, recorded: recordedFromRow(rows[0]), autoDisabled: false };
}

/**
 * Issue 32: an attempt that could not even be signed (the endpoint's secret does not open with
 * SECRETS_KEY) is recorded as the delivery's last, failed, with nothing sent: the attempt row (no
 * status code), the delivery `failed` with the reason, in one statement. The endpoint's failure streak
 * is left alone: the fault is ours, not the receiver's, and must not auto-disable it. A replay, once
 * the key is fixed, sends the event.
 */
export async function recordUnsentFailure(orm: Orm, a: { deliveryId: string; attempt: number; attemptedAt: Date; reason: string }): Promise<RecordOutcome> {
  const conn = orm.em.getConnection();
  const rows = await conn.execute<{ inserted: number }[]>(
    `with ins as (
       insert into webhook_attempts (delivery_id, attempt, attempted_at, outcome, status_code, duration_ms, error, response_body)
       values (?, ?, ?, 'failed', null, 0, ?, null) on conflict do nothing returning 1),
     delivery as (
       update webhook_deliveries set status = 'failed', attempt_count = greatest(attempt_count, ?), next_attempt_at = null, last_status_code = null,
         last_error = ?, completed_at = now(), updated_at = now()
       where id = ? and status = 'pending' and exists (select 1 from ins) returning 1)
     select (select count(*) from ins)::int as inserted`,
    [a.deliveryId, a.attempt, a.attemptedAt, a.reason, a.attempt, a.reason, a.deliveryId],
  );
  const result: AttemptResult = { deliveryId: a.deliveryId, endpointId: '', attempt: a.attempt, attemptedAt: a.attemptedAt, outcome: 'failed', statusCode: null, durationMs: 0, error: a.reason, responseBody: null, nextAttemptAt: null, failureReason: a.reason };
  if (rows[0].inserted === 1) return { inserted: true, recorded: { outcome: 'failed', statusCode: null, error: a.reason, retryInMs: null }, autoDisabled: false };
  return recordedFirst((sql, params) => conn.execute(sql, params), result);
}
