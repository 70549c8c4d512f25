import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Orm } from '../../persistence/orm';
import { findPortalSession, SESSION_TTL_MS, type PortalSession } from '../../persistence/portal/portal-session-store';

/**
 * The portal's cookies and request checks (docs/security.md "Merchant portal"):
 * - `portal_session`: the session token; HttpOnly, SameSite=Lax, Path=/, Secure when the port's
 *   public URL (WEB_PUBLIC_URL) is https (set by hand: behind a TLS proxy Koa sees plain http).
 * - `portal_signin`: before a session exists, the sign-in form's CSRF token (double submit).
 * - every POST: the Origin, when sent, must be the port's own, and the form's `csrf` field must equal
 *   the session's token (or the sign-in cookie's).
 */
export const SESSION_COOKIE = 'portal_session';
export const SIGN_IN_COOKIE = 'portal_signin';

function setCookie(ctx: Context, webUrl: string, name: string, value: string, maxAgeSeconds: number): void {
  const secure = webUrl.startsWith('https:') ? '; Secure' : '';
  ctx.append('Set-Cookie', `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`);
}

export function setSessionCookie(ctx: Context, webUrl: string, token: string): void {
  setCookie(ctx, webUrl, SESSION_COOKIE, token, Math.floor(SESSION_TTL_MS / 1000));
}

export function clearCookie(ctx: Context, webUrl: string, name: string): void {
  setCookie(ctx, webUrl, name, '', 0);
}

/** The sign-in form's token: the browser's `portal_signin` cookie, else a new one set now. */
export function signInToken(ctx: Context, webUrl: string): string {
  const existing = ctx.cookies.get(SIGN_IN_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(ctx, webUrl, SIGN_IN_COOKIE, token, 3600);
  return token;
}

export async function currentSession(ctx: Context, orm: Orm): Promise<PortalSession | null> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  return token ? findPortalSession(orm, token) : null;
}

/** A POST's Origin, when the browser sends one, is the port's own ("null" included: refused). */
export function sameOrigin(ctx: Context, webUrl: string): boolean {
  const origin = ctx.get('Origin');
  return origin === '' || origin === new URL(webUrl).origin;
}

export function tokensMatch(expected: string | undefined, given: string | null | undefined): boolean {
  if (!expected || !given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
