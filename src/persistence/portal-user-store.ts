import type { Orm } from './orm';
import { newId } from '../support/new-id';

/**
 * Portal users (`portal_users`, migration 20261128000006): who may sign in to a merchant's portal.
 * Emails are stored lower-cased; only the argon2id hash of a password is stored.
 */

/** Failures in a row that lock an account, and for how long (docs/security.md). */
export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_MS = 15 * 60_000;

export interface PortalUser {
  id: string;
  merchantId: string;
  email: string;
  passwordHash: string;
  failedAttempts: number;
  lockedUntil: Date | null;
  createdAt: Date;
  lastSignInAt: Date | null;
}

export class PortalUserRefused extends Error {}

interface Row {
  id: string;
  merchant_id: string;
  email: string;
  password_hash: string;
  failed_attempts: number;
  locked_until: Date | string | null;
  created_at: Date | string;
  last_sign_in_at: Date | string | null;
}

const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

function userOf(row: Row): PortalUser {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    passwordHash: row.password_hash,
    failedAttempts: Number(row.failed_attempts),
    lockedUntil: date(row.locked_until),
    createdAt: new Date(row.created_at),
    lastSignInAt: date(row.last_sign_in_at),
  };
}

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** `users create`: a user of an existing merchant; a taken email or an unknown merchant is refused, nothing written. */
export async function createPortalUser(orm: Orm, merchantId: string, email: string, passwordHash: string): Promise<{ id: string; merchant_id: string; email: string; created_at: string }> {
  const conn = orm.em.getConnection();
  const merchants = await conn.execute<{ id: string }[]>(`select id from merchants where id = ?`, [merchantId]);
  if (!merchants[0]) throw new PortalUserRefused(`merchant ${merchantId} does not exist`);
  const rows = await conn.execute<Row[]>(
    `insert into portal_users (id, merchant_id, email, password_hash) values (?, ?, ?, ?) on conflict (email) do nothing returning *`,
    [newId('portalUser'), merchantId, normalizeEmail(email), passwordHash],
  );
  if (!rows[0]) throw new PortalUserRefused(`a portal user with email ${normalizeEmail(email)} already exists`);
  const user = userOf(rows[0]);
  return { id: user.id, merchant_id: user.merchantId, email: user.email, created_at: user.createdAt.toISOString() };
}

/** `users list --merchant ID`: never a hash. */
export async function listPortalUsers(orm: Orm, merchantId: string): Promise<{ object: 'list'; data: Record<string, unknown>[] }> {
  const rows = await orm.em.getConnection().execute<Row[]>(`select * from portal_users where merchant_id = ? order by created_at, id`, [merchantId]);
  return {
    object: 'list',
    data: rows.map(userOf).map((u) => ({ id: u.id, email: u.email, created_at: u.createdAt.toISOString(), last_sign_in_at: u.lastSignInAt?.toISOString() ?? null, locked_until: u.lockedUntil && u.lockedUntil > new Date() ? u.lockedUntil.toISOString() : null })),
  };
}

export async function findPortalUserByEmail(orm: Orm, email: string): Promise<PortalUser | null> {
  const rows = await orm.em.getConnection().execute<Row[]>(`select * from portal_users where email = ?`, [normalizeEmail(email)]);
  return rows[0] ? userOf(rows[0]) : null;
}

/**
 * A failed sign-in: one more failure; the fifth in a row locks the account for 15 minutes (and the
 * count starts again). Returns the lock's end if now locked.
 */
export async function recordFailedSignIn(orm: Orm, userId: string): Promise<Date | null> {
  const rows = await orm.em.getConnection().execute<Row[]>(
    `update portal_users
        set failed_attempts = case when failed_attempts + 1 >= ? then 0 else failed_attempts + 1 end,
            locked_until = case when failed_attempts + 1 >= ? then now() + (? * interval '1 millisecond') else locked_until end
      where id = ? returning *`,
    [LOCKOUT_FAILURES, LOCKOUT_FAILURES, LOCKOUT_MS, userId],
  );
  const locked = rows[0] ? date(rows[0].locked_until) : null;
  return locked && locked > new Date() ? locked : null;
}

export async function recordSignIn(orm: Orm, userId: string): Promise<void> {
  await orm.em.getConnection().execute(`update portal_users set failed_attempts = 0, locked_until = null, last_sign_in_at = now() where id = ?`, [userId]);
}
