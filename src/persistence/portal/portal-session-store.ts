import { createHash, randomBytes } from 'node:crypto';
import type { Environment } from '../../domain/environment';
import type { PortalRole } from '../../domain/portal-roles';
import type { Orm } from '../orm';

/**
 * Portal sessions (`portal_sessions`, migrations 20261128000006 and 20261220000003). The cookie holds
 * a random token (32 bytes, base64url); the row's id is its sha256, so a database read never yields
 * a usable cookie. Each session has its own CSRF token (the synchronizer token of every form), its
 * environment (the sandbox/live switch), an absolute end, its last use, and a revocation (sign-out,
 * a password change or reset, "sign out everywhere", an operator's disable).
 *
 * A session is found only while it is younger than the absolute timeout (PORTAL_SESSION_MAX_HOURS,
 * default 12) and was used within the idle timeout (PORTAL_SESSION_IDLE_MINUTES, default 30); each
 * use moves `last_seen_at` on, at most once a minute (LAST_SEEN_STEP_MS) to spare a write per request.
 */
export const SESSION_TTL_MS = 12 * 3600_000;
export const SESSION_IDLE_MS = 30 * 60_000;
/** The idle clock moves at most this often per session: a session may end up to this much past its idle timeout's start. */
export const LAST_SEEN_STEP_MS = 60_000;

export interface SessionTimeouts {
  /** Longest time since the last use (PORTAL_SESSION_IDLE_MINUTES). */
  idleMs: number;
  /** Longest time since the sign-in (PORTAL_SESSION_MAX_HOURS). */
  maxMs: number;
}

export const DEFAULT_SESSION_TIMEOUTS: SessionTimeouts = { idleMs: SESSION_IDLE_MS, maxMs: SESSION_TTL_MS };

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

/** Where a session was opened from, shown on the Account page's session list. */
export interface SessionOrigin {
  clientAddress?: string;
  userAgent?: string;
}

const ms = `(? * interval '1 millisecond')`;

/** A new session of `userId`, in the sandbox (a password change's: in the environment it replaces); returns the cookie's token (shown to no one else, never stored). */
export async function createPortalSession(orm: Orm, userId: string, origin: SessionOrigin = {}, timeouts: SessionTimeouts = DEFAULT_SESSION_TIMEOUTS, environment: Environment = 'sandbox'): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await orm.em.getConnection().execute(
    `insert into portal_sessions (id, user_id, csrf_secret, expires_at, client_address, user_agent, environment) values (?, ?, ?, now() + ${ms}, ?, ?, ?)`,
    [sessionIdOf(token), userId, randomBytes(32).toString('base64url'), timeouts.maxMs, origin.clientAddress?.slice(0, 64) || null, origin.userAgent?.slice(0, 256) || null, environment],
  );
  return token;
}

/** The SQL condition of a live session `s` (its user `u` not disabled); its parameters are liveParams(timeouts). */
const LIVE = `s.revoked_at is null and s.expires_at > now() and s.created_at > now() - ${ms} and s.last_seen_at > now() - ${ms} and u.disabled_at is null`;
const liveParams = (t: SessionTimeouts): number[] => [t.maxMs, t.idleMs];

/**
 * The live session of a cookie token: not revoked, within both timeouts, its user not disabled; else
 * null. Its use is recorded (`last_seen_at`) in the same statement when the last one is older than
 * LAST_SEEN_STEP_MS.
 */
export async function findPortalSession(orm: Orm, token: string, timeouts: SessionTimeouts = DEFAULT_SESSION_TIMEOUTS): Promise<PortalSession | null> {
  if (!isSessionTokenShape(token)) return null;
  const rows = await orm.em.getConnection().execute<{ id: string; user_id: string; merchant_id: string; email: string; role: PortalRole; environment: Environment; csrf_secret: string }[]>(
    `with found as (
       select s.id, s.user_id, u.merchant_id, u.email, u.role, s.environment, s.csrf_secret, s.last_seen_at
         from portal_sessions s join portal_users u on u.id = s.user_id
        where s.id = ? and ${LIVE}),
     seen as (
       update portal_sessions p set last_seen_at = now() from found
        where p.id = found.id and found.last_seen_at < now() - ${ms} and p.revoked_at is null
        returning p.id)
     select id, user_id, merchant_id, email, role, environment, csrf_secret from found`,
    [sessionIdOf(token), ...liveParams(timeouts), LAST_SEEN_STEP_MS],
  );
  const row = rows[0];
  return row ? { id: row.id, userId: row.user_id, merchantId: row.merchant_id, email: row.email, role: row.role, environment: row.environment, csrfToken: row.csrf_secret } : null;
}

export async function revokePortalSession(orm: Orm, sessionId: string): Promise<void> {
  await orm.em.getConnection().execute(`update portal_sessions set revoked_at = now() where id = ? and revoked_at is null`, [sessionId]);
}

/** Ends the session of a cookie token, whoever's it is (a new sign-in in that browser); whether one was live. */
export async function revokeSessionOfToken(orm: Orm, token: string): Promise<boolean> {
  if (!isSessionTokenShape(token)) return false;
  const rows = await orm.em.getConnection().execute<{ id: string }[]>(`update portal_sessions set revoked_at = now() where id = ? and revoked_at is null returning id`, [sessionIdOf(token)]);
  return rows.length > 0;
}

/** Ends every session of `userId` but `exceptId` (none: all of them); the ids ended. */
export async function revokeUserSessions(orm: Orm, userId: string, exceptId: string | null = null): Promise<string[]> {
  const rows = await orm.em.getConnection().execute<{ id: string }[]>(
    `update portal_sessions set revoked_at = now() where user_id = ? and revoked_at is null and expires_at > now() and id <> coalesce(?, '') returning id`,
    [userId, exceptId],
  );
  return rows.map((r) => r.id);
}

/** Ends one session of `userId` (the Account page's "Sign out" of a row); false when it is not theirs or not live. */
export async function revokeOwnSession(orm: Orm, userId: string, sessionId: string): Promise<boolean> {
  const rows = await orm.em.getConnection().execute<{ id: string }[]>(
    `update portal_sessions set revoked_at = now() where id = ? and user_id = ? and revoked_at is null returning id`,
    [sessionId, userId],
  );
  return rows.length > 0;
}

export async function setSessionEnvironment(orm: Orm, sessionId: string, environment: Environment): Promise<void> {
  await orm.em.getConnection().execute(`update portal_sessions set environment = ? where id = ? and revoked_at is null`, [environment, sessionId]);
}

/** One of a user's live sessions, as the Account page lists it (never its token or CSRF secret). */
export interface SessionListing {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  clientAddress: string | null;
  userAgent: string | null;
}

/** A user's live sessions, the most recently used first. */
export async function listUserSessions(orm: Orm, userId: string, timeouts: SessionTimeouts = DEFAULT_SESSION_TIMEOUTS): Promise<SessionListing[]> {
  const rows = await orm.em.getConnection().execute<{ id: string; created_at: Date | string; last_seen_at: Date | string; client_address: string | null; user_agent: string | null }[]>(
    `select s.id, s.created_at, s.last_seen_at, s.client_address, s.user_agent
       from portal_sessions s join portal_users u on u.id = s.user_id
      where s.user_id = ? and ${LIVE}
      order by s.last_seen_at desc, s.created_at desc limit 100`,
    [userId, ...liveParams(timeouts)],
  );
  return rows.map((r) => ({ id: r.id, createdAt: new Date(r.created_at), lastSeenAt: new Date(r.last_seen_at), clientAddress: r.client_address, userAgent: r.user_agent }));
}
