import { createHash } from 'node:crypto';
import { newId } from '../../support/new-id';
import type { Orm } from '../orm';

/**
 * The portal's lock-out (`portal_sign_in_attempts`, migration 20261205000001; docs/security.md
 * "Merchant portal"), the same for every email, known or not, so that it tells nothing about which
 * emails exist. An attempt is counted in one statement before its password is checked; past
 * LOCKOUT_FAILURES attempts since the last success the email is locked for LOCKOUT_MS, and a locked
 * email is refused even with the right password. A success clears the count only while no lock is in
 * force: a burst of guesses cannot race its way past the lock.
 */
export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_MS = 15 * 60_000;

/** Emails are kept and compared lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** The row's key: the sha256 (hex) of the lower-cased email; no address is stored. */
export const attemptKeyOf = (email: string): string => createHash('sha256').update(normalizeEmail(email), 'utf8').digest('hex');

/** The same key in SQL, of a column holding a lower-cased email. */
export const attemptKeySql = (column: string): string => `encode(sha256(convert_to(${column}, 'UTF8')), 'hex')`;

const lockInterval = `(? * interval '1 millisecond')`;

export interface CountedAttempt {
  /** Attempts since the last success (this one included). */
  attempts: number;
  /** The lock's end while one is in force, else null: the attempt is refused without a password check. */
  lockedUntil: Date | null;
}

const inForce = (value: Date | string | null): Date | null => {
  const at = value === null ? null : new Date(value);
  return at && at > new Date() ? at : null;
};

/**
 * Counts one attempt, before its password is checked: a lock that has ended starts the count again;
 * an attempt past LOCKOUT_FAILURES locks the email (an earlier burst's own attempts included).
 */
export async function countAttempt(orm: Orm, key: string): Promise<CountedAttempt> {
  const rows = await orm.em.getConnection().execute<{ attempts: number; locked_until: Date | string | null }[]>(
    `insert into portal_sign_in_attempts as a (key, attempts, locked_until, updated_at)
     values (?, 1, null, now())
     on conflict (key) do update set
       attempts = case when a.locked_until <= now() then 1 else a.attempts + 1 end,
       locked_until = case when a.locked_until <= now() then null
                           when a.locked_until is null and a.attempts + 1 > ? then now() + ${lockInterval}
                           else a.locked_until end,
       updated_at = now()
     returning attempts, locked_until`,
    [key, LOCKOUT_FAILURES, LOCKOUT_MS],
  );
  return { attempts: Number(rows[0]!.attempts), lockedUntil: inForce(rows[0]!.locked_until) };
}

/**
 * A refused attempt (wrong password, locked, disabled user, or a success that found a lock in force):
 * the LOCKOUT_FAILURES-th in a row locks the email; and, in the same statement, the
 * `portal.sign_in_failed` audit row when the email is a user's (none for an unknown email, which has
 * no merchant: the statement is the same, so both answer on the same schedule). Returns the lock's end.
 */
export async function recordRefusedAttempt(orm: Orm, key: string, email: string, requestId: string): Promise<Date | null> {
  const rows = await orm.em.getConnection().execute<{ locked_until: Date | string | null }[]>(
    `with a as (
       update portal_sign_in_attempts
          set locked_until = case when attempts >= ? and (locked_until is null or locked_until <= now()) then now() + ${lockInterval} else locked_until end,
              updated_at = now()
        where key = ?
        returning locked_until),
     audit as (
       insert into operator_audit (id, payment_id, action, operator, reason, state_before, state_after, request_id, batch_id, merchant_id, environment, created_at)
       select ?, u.id, 'portal.sign_in_failed', left('portal:' || u.email, 100), 'portal: sign in failed', 'null'::jsonb,
              jsonb_build_object('locked_until', case when a.locked_until > now() then to_char(a.locked_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end),
              ?, null, u.merchant_id, 'sandbox', clock_timestamp()
         from portal_users u left join a on true
        where u.email = ?)
     select locked_until from a`,
    [LOCKOUT_FAILURES, LOCKOUT_MS, key, newId('audit'), requestId, normalizeEmail(email)],
  );
  return inForce(rows[0]?.locked_until ?? null);
}

/** A right password: clears the count, only while no lock is in force. False: a lock came first, and the sign-in is refused. */
export async function clearAttempts(orm: Orm, key: string): Promise<boolean> {
  const rows = await orm.em.getConnection().execute<{ key: string }[]>(
    `update portal_sign_in_attempts set attempts = 0, locked_until = null, updated_at = now()
      where key = ? and (locked_until is null or locked_until <= now()) returning key`,
    [key],
  );
  return rows.length > 0;
}

/** How long a count with no lock in force is kept: a refused attempt older than this no longer counts. */
export const ATTEMPTS_KEPT_MS = 24 * 3600_000;

/**
 * Deletes the rows no attempt touched for ATTEMPTS_KEPT_MS and under no lock (a flood of made-up
 * emails leaves one row each); returns how many.
 */
export async function pruneAttempts(orm: Orm): Promise<number> {
  const rows = await orm.em.getConnection().execute<{ key: string }[]>(
    `delete from portal_sign_in_attempts where updated_at < now() - ${lockInterval} and (locked_until is null or locked_until <= now()) returning key`,
    [ATTEMPTS_KEPT_MS],
  );
  return rows.length;
}
