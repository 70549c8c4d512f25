import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Orm } from '../../persistence/orm';
import { DEFAULT_SESSION_TIMEOUTS, findPortalSession, type PortalSession, type SessionTimeouts } from '../../persistence/portal/portal-session-store';

/**
 * The portal's cookies and request checks (docs/security.md "Merchant portal"):
 * - `__Host-portal_session`: the session token; HttpOnly, SameSite=Lax, Secure, Path=/, no Domain
 *   (the `__Host-` prefix makes the browser refuse the cookie otherwise, so no subdomain or plain-http
 *   page can set or shadow it).
 * - `__Host-portal_signin`: before a session exists, the sign-in form's CSRF token (double submit).
 * - every POST: the Origin, when sent, must be the port's own, and the form's `csrf` field must equal
 *   the session's token (or the sign-in cookie's).
 *
 * Browsers keep a Secure cookie set over plain http only from a loopback host (localhost, 127.0.0.0/8,
 * ::1), which they treat as a secure context. So the `__Host-` names and Secure are used when
 * WEB_PUBLIC_URL is https or a loopback http URL; a plain-http URL on any other host (a LAN test
 * box) falls back to the unprefixed names without Secure, and the web port warns of it at start
 * (cookiePolicyWarning). Behind a TLS proxy WEB_PUBLIC_URL is the https one and the names are prefixed.
 */
export interface CookiePolicy {
  session: string;
  signIn: string;
  secure: boolean;
}

const isLoopbackHost = (hostname: string): boolean =>
  hostname === 'localhost' || hostname.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(hostname) || hostname === '[::1]';

export function cookiePolicy(webUrl: string): CookiePolicy {
  const url = new URL(webUrl);
  const secure = url.protocol === 'https:' || isLoopbackHost(url.hostname);
  return secure ? { session: '__Host-portal_session', signIn: '__Host-portal_signin', secure } : { session: 'portal_session', signIn: 'portal_signin', secure };
}

/** The start-up warning for a WEB_PUBLIC_URL whose cookies cannot be Secure, or null. */
export function cookiePolicyWarning(webUrl: string): string | null {
  return cookiePolicy(webUrl).secure
    ? null
    : `WEB_PUBLIC_URL ${new URL(webUrl).origin} is plain http on a host that is not loopback: the portal's cookies are not Secure and lose their __Host- prefix (browsers refuse Secure cookies over http there); serve the web port over https (a TLS proxy, WEB_PUBLIC_URL=https://…)`;
}

function setCookie(ctx: Context, webUrl: string, name: string, value: string, maxAgeSeconds: number): void {
  const secure = cookiePolicy(webUrl).secure ? '; Secure' : '';
  ctx.append('Set-Cookie', `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`);
}

export function setSessionCookie(ctx: Context, webUrl: string, token: string, timeouts: SessionTimeouts = DEFAULT_SESSION_TIMEOUTS): void {
  setCookie(ctx, webUrl, cookiePolicy(webUrl).session, token, Math.floor(timeouts.maxMs / 1000));
}

export function clearCookie(ctx: Context, webUrl: string, name: string): void {
  setCookie(ctx, webUrl, name, '', 0);
}

export const clearSessionCookie = (ctx: Context, webUrl: string): void => clearCookie(ctx, webUrl, cookiePolicy(webUrl).session);
export const clearSignInCookie = (ctx: Context, webUrl: string): void => clearCookie(ctx, webUrl, cookiePolicy(webUrl).signIn);

/** The session cookie's token as the browser sent it (not checked). */
export const sessionCookieToken = (ctx: Context, webUrl: string): string | undefined => ctx.cookies.get(cookiePolicy(webUrl).session) || undefined;

/** The sign-in cookie's token as the browser sent it (the double-submit CSRF token of the forms before a session). */
export const signInCookieToken = (ctx: Context, webUrl: string): string | undefined => ctx.cookies.get(cookiePolicy(webUrl).signIn) || undefined;

/** The sign-in form's token: the browser's sign-in cookie, else a new one set now (also the reset forms'). */
export function signInToken(ctx: Context, webUrl: string): string {
  const existing = signInCookieToken(ctx, webUrl);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(ctx, webUrl, cookiePolicy(webUrl).signIn, token, 3600);
  return token;
}

export async function currentSession(ctx: Context, orm: Orm, webUrl: string, timeouts: SessionTimeouts = DEFAULT_SESSION_TIMEOUTS): Promise<PortalSession | null> {
  const token = sessionCookieToken(ctx, webUrl);
  return token ? findPortalSession(orm, token, timeouts) : null;
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
