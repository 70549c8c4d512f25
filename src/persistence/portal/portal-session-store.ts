import { createHash, randomBytes } from 'node:crypto';
import type { Environment } from '../../domain/environment';
import type { PortalRole } from '../../domain/portal-roles';
import type { Orm } from '../orm';

/**
 * Portal sessions (`portal_sessions`, migration 20261128000006). The cookie holds a random token
 * (32 bytes, base64url); the row's id is its sha256, so a database read never yields a usable
 * cookie. Each session has its own CSRF token (the synchronizer token of every form), its
 * environment (the sandbox/live switch), an expiry, and a revocation (sign-out).
 */
export const SESSION_TTL_MS = 12 * 3600_000;

export interface PortalSession {
  id: string;
  userId: string;
  merchantId: string;
  email: string;
  /** The user's role now (read with every request: a change applies at once; src/domain/portal-roles.ts). */
  role: PortalRole;
  environment: Environment;
  csrfToken: string;
}

export const sessionIdOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A cookie token's shape (anything else is never looked up). */
export const isSessionTokenShape = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);

/** A new session of `userId`, in the sandbox; returns the cookie's token (shown to no one else, never stored). */
export async function createPortalSession(orm: Orm, userId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await orm.em.getConnection().execute(
    `insert into portal_sessions (id, user_id, csrf_secret, expires_at) values (?, ?, ?, now() + (? * interval '1 millisecond'))`,
    [sessionIdOf(token), userId, randomBytes(32).toString('base64url'), SESSION_TTL_MS],
  );
  return token;
}

/** The live session of a cookie token: not revoked, not expired, its user not disabled; else null. */
export async function findPortalSession(orm: Orm, token: string): Promise<PortalSession | null> {
  if (!isSessionTokenShape(token)) return null;
  const rows = await orm.em.getConnection().execute<{ id: string; user_id: string; merchant_id: string; email: string; role: PortalRole; environment: Environment; csrf_secret: string }[]>(
    `select s.id, s.user_id, u.merchant_id, u.email, u.role, s.environment, s.csrf_secret
       from portal_sessions s join portal_users u on u.id = s.user_id
      where s.id = ? and s.revoked_at is null and s.expires_at > now() and u.disabled_at is null`,
    [sessionIdOf(token)],
  );
  const row = rows[0];
  return row ? { id: row.id, userId: row.user_id, merchantId: row.merchant_id, email: row.email, role: row.role, environment: row.environment, csrfToken: row.csrf_secret } : null;
}

export async function revokePortalSession(orm: Orm, sessionId: string): Promise<void> {
  await orm.em.getConnection().execute(`update portal_sessions set revoked_at = now() where id = ? and revoked_at is null`, [sessionId]);
}

export async function setSessionEnvironment(orm: Orm, sessionId: string, environment: Environment): Promise<void> {
  await orm.em.getConnection().execute(`update portal_sessions set environment = ? where id = ? and revoked_at is null`, [environment, sessionId]);
}
