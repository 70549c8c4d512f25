import { loadConfig } from '../../src/config';
import { renderEmail } from '../../src/notifications/templates';
import { isCommonPassword, passwordProblem } from '../../src/support/password';
import { randomBase62 } from '../../src/support/new-id';
import { cookiePolicy, cookiePolicyWarning } from '../../src/web/portal/session';
import { userAgentSummary } from '../../src/web/portal/user-agent';

/** Issue 47, finding 6: the password policy, the cookie names by WEB_PUBLIC_URL, the session settings, the reset email. */

test('a new password: 12 to 256 characters, not on the shipped breached-password list (also with digits or symbols around it, or repeated), not the email', () => {
  expect(passwordProblem('short')).toMatch(/at least 12/);
  expect(passwordProblem('x'.repeat(257))).toMatch(/at most 256/);
  for (const common of ['1qaz2wsx3edc', 'qwertyuiop123', 'Password2024!', '!!Sunshine1234', 'qwertyqwerty', 'aaaaaaaaaaaa', 'abcabcabcabc']) expect([common, isCommonPassword(common)]).toEqual([common, true]);
  expect(passwordProblem('Password2024!')).toMatch(/too common/);
  expect(passwordProblem('ama.owner2024', 'Ama.Owner@shop.example')).toMatch(/must not contain your email/);
  expect(passwordProblem('ama.owner2024', 'someone@shop.example')).toBeNull();
  // A one-letter local part only when the password is exactly it (it cannot be: 12 characters); anything longer is fine.
  expect(passwordProblem('Vivid-o-Lantern-73', 'o@shop.example')).toBeNull();
  // Generated passwords (users create, merchants create --email) always pass.
  for (let i = 0; i < 200; i++) expect(passwordProblem(randomBase62(20), 'owner@shop.example')).toBeNull();
});

test('cookies: __Host- names and Secure on https and loopback http; unprefixed, not Secure, with a start-up warning on plain http elsewhere', () => {
  for (const url of ['https://pay.example', 'http://127.0.0.1:3002', 'http://localhost:3002', 'http://[::1]:3002']) {
    expect([url, cookiePolicy(url)]).toEqual([url, { session: '__Host-portal_session', signIn: '__Host-portal_signin', secure: true }]);
    expect(cookiePolicyWarning(url)).toBeNull();
  }
  expect(cookiePolicy('http://192.168.1.20:3002')).toEqual({ session: 'portal_session', signIn: 'portal_signin', secure: false });
  expect(cookiePolicyWarning('http://portal.lan:3002')).toMatch(/not Secure and lose their __Host- prefix/);
});

test('PORTAL_SESSION_IDLE_MINUTES and PORTAL_SESSION_MAX_HOURS: 30 min and 12 h by default; checked at start', () => {
  expect(loadConfig({}).portalSessions).toEqual({ idleMs: 30 * 60_000, maxMs: 12 * 3_600_000 });
  expect(loadConfig({ PORTAL_SESSION_IDLE_MINUTES: '15', PORTAL_SESSION_MAX_HOURS: '8' }).portalSessions).toEqual({ idleMs: 15 * 60_000, maxMs: 8 * 3_600_000 });
  expect(() => loadConfig({ PORTAL_SESSION_IDLE_MINUTES: '0' })).toThrow(/PORTAL_SESSION_IDLE_MINUTES must be a positive integer/);
  expect(() => loadConfig({ PORTAL_SESSION_MAX_HOURS: '1', PORTAL_SESSION_IDLE_MINUTES: '90' })).toThrow(/must not be longer than PORTAL_SESSION_MAX_HOURS/);
});

test('the reset email carries the link, the account and the expiry; a session list names browsers briefly', () => {
  const email = renderEmail({
    kind: 'portal_password_reset',
    environment: 'live',
    merchantName: 'Shop',
    resource: { link: 'https://pay.example/password-reset/abc', email: 'ama@shop.example', expires_at: '2026-12-20T10:30:00.000Z' },
    occurredAt: '2026-12-20T10:00:00.000Z',
    minorUnits: 2,
  });
  expect(email.subject).toBe('Reset your merchant portal password');
  expect(email.text).toContain('https://pay.example/password-reset/abc');
  expect(email.html).toContain('https://pay.example/password-reset/abc');
  expect(email.text).toMatch(/ama@shop\.example/);
  expect(userAgentSummary('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36 Edg/130.0')).toBe('Edge on Windows');
  expect(userAgentSummary('Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0')).toBe('Firefox on Linux');
  expect(userAgentSummary(null)).toBe('Unknown browser');
});
