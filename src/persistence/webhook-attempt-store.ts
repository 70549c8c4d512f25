import { shouldAutoDisable, type DisableRule } from '../domain/webhook-health';
import type { Environment } from '../domain/environment';
import type { DeliveryStatus } from '../domain/webhook-delivery';
import type { Orm } from './orm';

/** Everything one attempt needs, read in one query. Secrets stay sealed until the sender opens them. */
export interface AttemptContext {
  deliveryId: string;
  deliveryStatus: DeliveryStatus;
  eventId: string;
  eventType: string;
  eventBody: string;
  eventSequence: number;
  endpointId: string;
  environment: Environment;
  url: string;
  timeoutSeconds: number;
  endpointStatus: 'active' | 'disabled';
  endpointDeleted: boolean;
  secretBox: string;
  previousSecretBox: string | null;
  previousSecretExpiresAt: Date | null;
  /** Set when this attempt number was already recorded (a retried activity): it is not sent again. */
  recorded: { outcome: 'succeeded' | 'failed'; statusCode: number | null; error: string | null; retryInMs: number | null } | null;
}

export async function loadAttemptContext(orm: Orm, deliveryId: string, attempt: number): Promise<AttemptContext | null> {
  const rows = await orm.em.getConnection().execute<Record<string, never>[]>(
    `select d.id, d.status, d.event_id, d.event_type, e.body, e.sequence, w.id as endpoint_id, w.environment, w.url, w.timeout_seconds,
            w.status as endpoint_status, w.deleted_at, w.secret_box, w.previous_secret_box, w.previous_secret_expires_at,
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
    environment: r.environment as Environment,
    url: r.url as string,
    timeoutSeconds: r.timeout_seconds as number,
    endpointStatus: r.endpoint_status as 'active' | 'disabled',
    endpointDeleted: r.deleted_at !== null,
    secretBox: r.secret_box as string,
    previousSecretBox: (r.previous_secret_box as string | null) ?? null,
    previousSecretExpiresAt: r.previous_secret_expires_at ? new Date(r.previous_secret_expires_at as string) : null,
    recorded: r.outcome
      ? {
          outcome: r.outcome as 'succeeded' | 'failed',
          statusCode: (r.status_code as number | null) ?? null,
          error: (r.error as string | null) ?? null,
          // The wait recorded with it (Retry-After applied); null after the last attempt.
          retryInMs: r.outcome === 'failed' && r.next_attempt_at
            ? Math.max(0, new Date(r.next_attempt_at as string).getTime() - new Date(r.attempted_at as string).getTime())
            : null,
        }
      : null,
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
}

/**
 * Records one attempt, the delivery's state and the endpoint's health in one transaction. The
 * endpoint row is locked so concurrent deliveries count the streak exactly; the auto-disable rule is
 * applied here. Recording the same attempt twice changes nothing.
 */
export async function recordAttempt(orm: Orm, a: AttemptResult, rule: DisableRule): Promise<{ autoDisabled: boolean }> {
  return orm.em.fork().transactional(async (em) => {
    const inserted = await em.execute<unknown[]>(
      `insert into webhook_attempts (delivery_id, attempt, attempted_at, outcome, status_code, duration_ms, error, response_body)
       values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning 1`,
      [a.deliveryId, a.attempt, a.attemptedAt, a.outcome, a.statusCode, a.durationMs, a.error, a.responseBody],
    );
    if (inserted.length === 0) return { autoDisabled: false };
    const status: DeliveryStatus = a.outcome === 'succeeded' ? 'succeeded' : a.nextAttemptAt ? 'pending' : 'failed';
    await em.execute(
      `update webhook_deliveries set status = ?, attempt_count = greatest(attempt_count, ?), next_attempt_at = ?, last_status_code = ?,
         last_error = ?, completed_at = case when ? = 'pending' then null else ?::timestamptz end, updated_at = now()
       where id = ?`,
      [status, a.attempt, a.nextAttemptAt, a.statusCode, a.error, status, a.attemptedAt, a.deliveryId],
    );
    if (a.outcome === 'succeeded') {
      await em.execute(`update webhook_endpoints set consecutive_failures = 0, failure_streak_started_at = null where id = ?`, [a.endpointId]);
      return { autoDisabled: false };
    }
    const rows = await em.execute<{ status: string; consecutive_failures: number; failure_streak_started_at: Date | null }[]>(
      `select status, consecutive_failures, failure_streak_started_at from webhook_endpoints where id = ? for update`,
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
      [failures, streakStart, a.failureReason, a.attemptedAt, disable, disable, a.attemptedAt, disable, a.endpointId],
    );
    return { autoDisabled: disable };
  });
}
