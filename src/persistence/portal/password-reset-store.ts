import { createHash } from 'node:crypto';
import { notificationId } from '../../notifications/notification-id';
import { newId } from '../../support/new-id';
import type { Orm } from '../orm';
import { attemptKeyOf, normalizeEmail } from './sign-in-attempts';

/**
 * Password resets by an emailed one-time link (`portal_password_resets`, migration 20261220000002;
 * docs/security.md "Merchant portal"). The link's token is 32 random bytes (base64url); only its
 * sha256 is the row's id. A reset lasts RESET_TTL_MS, is used once, and a newer request for the same
 * user replaces the older ones. The email is a `portal_password_reset` notification written in the
 * same statement as the reset (the notifications outbox), its link sealed with SECRETS_KEY for the
 * worker that sends it, and cleared once the reset is used or replaced.
 */
export const RESET_TTL_MS = 30 * 60_000;

export const resetIdOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A link token's shape (anything else is never looked up). */
export const isResetTokenShape = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);

const ms = `(? * interval '1 millisecond')`;

/**
 * A reset asked for `email`, in ONE statement whether or not the email is a user's, so neither the
 * answer nor its timing tells: for an existing, active user, the older resets are replaced, the new
 * one is written with its email (a pending notification) and the `portal.password_reset_request`
 * audit row; for an unknown or disabled email nothing is written. Returns the notification to start,
 * or null.
 */
export async function requestPasswordReset(orm: Orm, input: { email: string; token: string; linkSealed: string; requestId: string }): Promise<{ notificationId: string; merchantId: string } | null> {
  const id = resetIdOf(input.token);
  const rows = await orm.em.getConnection().execute<{ id: string; merchant_id: string }[]>(
    `with u as (
       select id, merchant_id, email from portal_users where email = ? and disabled_at is null),
     replaced as (
       update portal_password_resets r set superseded_at = now(), link_sealed = null from u
        where r.user_id = u.id and r.used_at is null and r.superseded_at is null
        returning r.id),
     reset as (
       insert into portal_password_resets (id, user_id, link_sealed, expires_at)
       select ?, u.id, ?, now() + ${ms} from u
       returning id, user_id),
     mail as (
       insert into notifications (id, merchant_id, environment, kind, recipient, source_id, resource_id, channel, to_masked, status, last_error, created_at, updated_at, completed_at)
       select ?, u.merchant_id, 'live', 'portal_password_reset', 'merchant', reset.id, u.id, 'email', null, 'pending', null, date_trunc('milliseconds', now()), now(), null
         from reset join u on u.id = reset.user_id
       returning id, merchant_id),
     audit as (
       insert into operator_audit (id, payment_id, action, operator, reason, state_before, state_after, request_id, batch_id, merchant_id, environment, created_at)
       select ?, u.id, 'portal.password_reset_request', left('portal:' || u.email, 100), 'portal: password reset asked for by email', 'null'::jsonb,
              jsonb_build_object('replaced', (select count(*) from replaced)), ?, null, u.merchant_id, null, clock_timestamp()
         from reset join u on u.id = reset.user_id)
     select id, merchant_id from mail`,
    [normalizeEmail(input.email), id, input.linkSealed, RESET_TTL_MS, notificationId(id, 'merchant'), newId('audit'), input.requestId],
  );
  return rows[0] ? { notificationId: rows[0].id, merchantId: rows[0].merchant_id } : null;
}

/** The user of a usable reset link (not used, not replaced, not expired, the user active), or null. */
export async function findUsableReset(orm: Orm, token: string): Promise<{ userId: string; email: string } | null> {
  if (!isResetTokenShape(token)) return null;
  const rows = await orm.em.getConnection().execute<{ user_id: string; email: string }[]>(
    `select r.user_id, u.email from portal_password_resets r join portal_users u on u.id = r.user_id
      where r.id = ? and r.used_at is null and r.superseded_at is null and r.expires_at > now() and u.disabled_at is null`,
    [resetIdOf(token)],
  );
  return rows[0] ? { userId: rows[0].user_id, email: rows[0].email } : null;
}

/**
 * Uses a reset link, in one transaction: the reset is consumed (only if still usable: a second use, a
 * replaced or expired link, or a disabled user changes nothing and answers null), the password hash
 * replaced, every session of the user ended, the sign-in lock-out count of the email cleared, and the
 * `portal.password_reset` audit row written.
 */
export async function completePasswordReset(orm: Orm, token: string, passwordHash: string, requestId: string): Promise<{ userId: string; email: string; merchantId: string; sessionsEnded: number } | null> {
  if (!isResetTokenShape(token)) return null;
  return orm.em.fork().transactional(async (em) => {
    const used = await em.execute<{ user_id: string; email: string; merchant_id: string }[]>(
      `update portal_password_resets r set used_at = now(), link_sealed = null from portal_users u
        where r.id = ? and u.id = r.user_id and r.used_at is null and r.superseded_at is null and r.expires_at > now() and u.disabled_at is null
        returning r.user_id, u.email, u.merchant_id`,
      [resetIdOf(token)],
    );
    const user = used[0];
    if (!user) return null;
    await em.execute(`update portal_users set password_hash = ? where id = ?`, [passwordHash, user.user_id]);
    const ended = await em.execute<{ id: string }[]>(`update portal_sessions set revoked_at = now() where user_id = ? and revoked_at is null returning id`, [user.user_id]);
    await em.execute(`update portal_sign_in_attempts set attempts = 0, locked_until = null, updated_at = now() where key = ?`, [attemptKeyOf(user.email)]);
    await em.execute(
      `insert into operator_audit (id, payment_id, action, operator, reason, state_before, state_after, request_id, batch_id, merchant_id, environment, created_at)
       values (?, ?, 'portal.password_reset', ?, 'portal: password reset by its emailed link', 'null'::jsonb, ?::jsonb, ?, null, ?, null, clock_timestamp())`,
      [newId('audit'), user.user_id, `portal:${user.email}`.slice(0, 100), JSON.stringify({ sessions_ended: ended.length, lockout_cleared: true }), requestId, user.merchant_id],
    );
    return { userId: user.user_id, email: user.email, merchantId: user.merchant_id, sessionsEnded: ended.length };
  });
}
