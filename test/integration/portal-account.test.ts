import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';
import { PortalClient } from '../support/portal-client';
import { newPortalUser, startPortalWeb, type PortalWeb } from '../support/portal-web';
import { until } from '../support/webhook-fixtures';

/**
 * Issue 47, finding 6 (docs/security.md "Merchant portal"): sessions end when idle and at their
 * absolute end, their cookies are `__Host-` ones, a new sign-in ends the browser's older session;
 * the Account page changes the password (the policy, the current password, the other sessions
 * ended, the session rotated) and lists one's sessions (sign out one, sign out everywhere); the
 * password reset by an emailed one-time link (the email read from the notifications outbox).
 */

let h: Harness;
let web: PortalWeb;
let m: TestMerchant;
let dataDir: string;
beforeAll(async () => {
  // The worker's emails go to files under DATA_DIR/outbox (no SMTP_URL): a directory of this file's own.
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-account-'));
  const before = process.env.DATA_DIR;
  process.env.DATA_DIR = dataDir;
  try {
    h = await startHarness();
  } finally {
    if (before === undefined) delete process.env.DATA_DIR;
    else process.env.DATA_DIR = before;
  }
  web = await startPortalWeb(h);
  m = await h.merchant();
});
afterAll(async () => {
  await web?.close();
  await h?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const SESSION = '__Host-portal_session';
const sql = <T>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const sessionRow = async (client: PortalClient) =>
  (await sql<{ revoked_at: Date | null; last_seen_at: Date }>(`select revoked_at, last_seen_at from portal_sessions where id = encode(sha256(?::bytea), 'hex')`, [client.cookies.get(SESSION)!]))[0]!;
const userId = async (email: string) => (await sql<{ id: string }>(`select id from portal_users where email = ?`, [email]))[0]!.id;
const audits = (subject: string) => sql<{ action: string; state_after: Record<string, unknown> | null }>(`select action, state_after from operator_audit where payment_id = ? order by created_at, id`, [subject]);

async function signIn(email: string, password: string): Promise<PortalClient> {
  const client = new PortalClient(web.url);
  const res = await client.signIn(email, password);
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return client;
}
const signedInPage = async (client: PortalClient, path = '/account') => {
  const page = await client.get(path);
  return page.status === 200 ? page : null;
};

test('cookies: __Host-portal_session and __Host-portal_signin (Secure, Path=/, no Domain) on a loopback or https URL; unprefixed, not Secure, on a plain-http LAN URL', async () => {
  const user = await newPortalUser(h.orm, m.id);
  const client = new PortalClient(web.url);
  await client.get('/sign-in');
  expect(client.lastSetCookies.find((c) => c.startsWith('__Host-portal_signin='))).toMatch(/; Path=\/; .*; Secure$/);
  await client.post('/sign-in', { csrf: PortalClient.csrfOf((await client.get('/sign-in')).text), email: user.email, password: user.password });
  const cookie = client.lastSetCookies.find((c) => c.startsWith(`${SESSION}=`))!;
  expect(cookie).toMatch(/; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure$/);
  expect(cookie).not.toMatch(/Domain/i);
  expect((await client.get('/payments')).status).toBe(200);
  // An unprefixed cookie is not a session any more.
  const old = await fetch(`${web.url}/payments`, { redirect: 'manual', headers: { cookie: `portal_session=${client.cookies.get(SESSION)}` } });
  expect(old.headers.get('location')).toBe('/sign-in');

  const lan = await startPortalWeb(h, { webUrl: 'http://portal.lan:3002' });
  try {
    const page = await fetch(`${lan.url}/sign-in`);
    expect(page.headers.getSetCookie()[0]).toMatch(/^portal_signin=[^;]+; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
  } finally {
    await lan.close();
  }
});

test('a session ends after PORTAL_SESSION_IDLE_MINUTES unused and PORTAL_SESSION_MAX_HOURS after its sign-in; a use moves last_seen_at on (at most once a minute)', async () => {
  const user = await newPortalUser(h.orm, m.id);
  const idle = await signIn(user.email, user.password);
  const id = [idle.cookies.get(SESSION)!];
  // Used 5 minutes ago: still live, and this use is recorded.
  await sql(`update portal_sessions set last_seen_at = now() - interval '5 minutes' where id = encode(sha256(?::bytea), 'hex')`, id);
  expect(await signedInPage(idle)).not.toBeNull();
  expect(Date.now() - new Date((await sessionRow(idle)).last_seen_at).getTime()).toBeLessThan(30_000);
  // Unused for 31 minutes: gone (its POSTs too).
  await sql(`update portal_sessions set last_seen_at = now() - interval '31 minutes' where id = encode(sha256(?::bytea), 'hex')`, id);
  expect((await idle.get('/payments')).headers.get('location')).toBe('/sign-in');

  const old = await signIn(user.email, user.password);
  // Signed in 12 hours and a second ago, used a moment ago: gone, whatever its stored expiry says.
  await sql(`update portal_sessions set created_at = now() - interval '12 hours 1 second', expires_at = now() + interval '1 hour' where id = encode(sha256(?::bytea), 'hex')`, [old.cookies.get(SESSION)!]);
  expect((await old.get('/payments')).headers.get('location')).toBe('/sign-in');

  // The settings shorten both for a web port told so.
  const short = await startPortalWeb(h, { sessionTimeouts: { idleMs: 60_000, maxMs: 3_600_000 } });
  try {
    const client = new PortalClient(short.url);
    expect((await client.signIn(user.email, user.password)).status).toBe(303);
    expect(client.lastSetCookies.find((c) => c.startsWith(`${SESSION}=`))).toMatch(/Max-Age=3600;/);
    await sql(`update portal_sessions set last_seen_at = now() - interval '61 seconds' where id = encode(sha256(?::bytea), 'hex')`, [client.cookies.get(SESSION)!]);
    expect((await client.get('/payments')).headers.get('location')).toBe('/sign-in');
  } finally {
    await short.close();
  }
});

test("a new sign-in in a browser that still presents a session cookie ends that older session (another user's too)", async () => {
  const a = await newPortalUser(h.orm, m.id);
  const b = await newPortalUser(h.orm, m.id);
  const browser = await signIn(a.email, a.password);
  const first = browser.cookies.get(SESSION)!;
  // A sign-in form opened before (another tab), posted while the browser holds A's live session.
  browser.cookies.delete(SESSION);
  const form = await browser.get('/sign-in');
  browser.cookies.set(SESSION, first);
  expect((await browser.post('/sign-in', { csrf: PortalClient.csrfOf(form.text), email: b.email, password: b.password })).status).toBe(303);
  expect(browser.cookies.get(SESSION)).not.toBe(first);
  const ended = await sql<{ revoked_at: Date | null }>(`select revoked_at from portal_sessions where id = encode(sha256(?::bytea), 'hex')`, [first]);
  expect(ended[0]!.revoked_at).not.toBeNull();
  const replay = await fetch(`${web.url}/payments`, { redirect: 'manual', headers: { cookie: `${SESSION}=${first}` } });
  expect(replay.headers.get('location')).toBe('/sign-in');
  expect((await audits(await userId(b.email))).at(-1)).toEqual({ action: 'portal.sign_in', state_after: { ended_older_session: true } });
});

test('Account: a password change checks the policy and the current password, ends the other sessions, rotates this one, and is audited without the password', async () => {
  const user = await newPortalUser(h.orm, m.id);
  const here = await signIn(user.email, user.password);
  const elsewhere = await signIn(user.email, user.password);
  const page = (await signedInPage(here))!;
  const csrf = PortalClient.csrfOf(page.text);
  const change = (current: string, next: string, confirm = next) => here.post('/account/password', { csrf, current_password: current, new_password: next, confirm_password: confirm });
  const local = user.email.split('@')[0]!;

  for (const [next, reason] of [
    ['short-pass', /at least 12 characters/],
    ['Password2024!', /too common/],
    ['1qaz2wsx3edc', /too common/],
    ['qwertyqwerty', /too common/],
    [`my-${local}-pass`, /must not contain your email address/],
  ] as const) {
    const refused = await change(user.password, next);
    expect({ status: refused.status, reason: reason.test(refused.text) }).toEqual({ status: 400, reason: true });
  }
  expect((await change(user.password, 'Vivid-Lantern-Orbit-73', 'Vivid-Lantern-Orbit-74')).text).toContain('differ');
  const wrong = await change('not-the-password', 'Vivid-Lantern-Orbit-73');
  expect({ status: wrong.status, text: wrong.text.includes('The current password is not right.') }).toEqual({ status: 400, text: true });
  expect((await sessionRow(elsewhere)).revoked_at).toBeNull();

  const before = here.cookies.get(SESSION)!;
  const ok = await change(user.password, 'Vivid-Lantern-Orbit-73');
  expect({ status: ok.status, location: ok.headers.get('location') }).toEqual({ status: 303, location: '/account?done=password' });
  expect(here.cookies.get(SESSION)).not.toBe(before);
  const after = (await signedInPage(here, '/account?done=password'))!;
  expect(after.text).toContain('Your password is changed.');
  expect(PortalClient.csrfOf(after.text)).not.toBe(csrf);
  expect((await elsewhere.get('/payments')).headers.get('location')).toBe('/sign-in');
  const replay = await fetch(`${web.url}/payments`, { redirect: 'manual', headers: { cookie: `${SESSION}=${before}` } });
  expect(replay.headers.get('location')).toBe('/sign-in');

  const changed = (await audits(await userId(user.email))).filter((r) => r.action === 'portal.password_change');
  expect(changed).toEqual([{ action: 'portal.password_change', state_after: { other_sessions_ended: 1 } }]);
  expect(JSON.stringify(await sql(`select * from operator_audit where payment_id = ?`, [await userId(user.email)]))).not.toContain('Vivid-Lantern');
  expect((await new PortalClient(web.url).signIn(user.email, user.password)).status).toBe(401);
  expect((await new PortalClient(web.url).signIn(user.email, 'Vivid-Lantern-Orbit-73')).status).toBe(303);
});

test('Account: the session list shows only my live sessions ("this browser" marked); Sign out ends one; Sign out everywhere ends all, this one too, audited', async () => {
  const user = await newPortalUser(h.orm, m.id);
  const other = await newPortalUser(h.orm, m.id);
  const phone = new PortalClient(web.url);
  await phone.get('/sign-in');
  await phone.post('/sign-in', { csrf: PortalClient.csrfOf((await phone.get('/sign-in')).text), email: user.email, password: user.password }, { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1' });
  const laptop = await signIn(user.email, user.password);
  await signIn(other.email, other.password);
  const page = (await signedInPage(laptop))!;
  const rows = page.text.match(/<tr[ >][\s\S]*?<\/tr>/g)!.slice(1);
  expect(rows).toHaveLength(2);
  expect(page.text).toContain('Safari on iOS');
  expect(page.text.match(/\(this browser\)/g)).toHaveLength(1);
  expect(/<tr id="this-session">/.test(page.text)).toBe(true);

  const phoneSession = /name="session" value="([0-9a-f]{64})"/.exec(page.text)![1]!;
  const csrf = PortalClient.csrfOf(page.text);
  const out = await laptop.post('/account/sessions/revoke', { csrf, session: phoneSession });
  expect(out.headers.get('location')).toBe('/account?done=session');
  expect((await phone.get('/payments')).headers.get('location')).toBe('/sign-in');
  // Another user's session is not mine to end.
  const others = await sql<{ id: string }>(`select id from portal_sessions where user_id = ? and revoked_at is null`, [await userId(other.email)]);
  expect((await laptop.post('/account/sessions/revoke', { csrf, session: others[0]!.id })).status).toBe(404);
  expect((await sql(`select 1 from portal_sessions where id = ? and revoked_at is null`, [others[0]!.id])).length).toBe(1);

  const again = await signIn(user.email, user.password);
  const everywhere = await laptop.post('/account/sessions/revoke-all', { csrf });
  expect(everywhere.headers.get('location')).toBe('/sign-in');
  expect(laptop.cookies.has(SESSION)).toBe(false);
  expect((await again.get('/payments')).headers.get('location')).toBe('/sign-in');
  const actions = (await audits(await userId(user.email))).map((r) => r.action);
  expect(actions).toEqual(expect.arrayContaining(['portal.session_revoke', 'portal.sign_out_everywhere']));
  expect((await audits(await userId(user.email))).find((r) => r.action === 'portal.sign_out_everywhere')!.state_after).toEqual({ sessions_ended: 2 });
});

/** The reset email of the user in the outbox, and the link it carries (sealed at rest; opened as the sender does). */
async function resetLinksOf(email: string): Promise<string[]> {
  const rows = await sql<{ link_sealed: string | null; status: string }>(
    `select r.link_sealed, n.status from notifications n join portal_password_resets r on r.id = n.source_id join portal_users u on u.id = r.user_id
      where n.kind = 'portal_password_reset' and n.recipient = 'merchant' and n.resource_id = u.id and u.email = ? order by n.created_at`,
    [email],
  );
  return rows.map((r) => (r.link_sealed ? h.deps.secretBox.open(r.link_sealed) : 'gone'));
}
const resetFor = async (client: PortalClient, email: string) => client.post('/password-reset', { csrf: PortalClient.csrfOf((await client.get('/password-reset')).text), email });

test('reset: the same answer for a user, an unknown and a disabled email; only the user gets an email (outbox); the link is single use, replaced by a newer one, expires; it ends every session and clears the lock-out', async () => {
  const user = await newPortalUser(h.orm, m.id);
  const disabled = await newPortalUser(h.orm, m.id);
  await sql(`update portal_users set disabled_at = now(), disabled_by = 'operator' where email = ?`, [disabled.email]);
  const signedIn = await signIn(user.email, user.password);
  const browser = new PortalClient(web.url);
  expect((await browser.get('/sign-in')).text).toContain('href="/password-reset"');

  const answers = [];
  for (const email of [user.email, `nobody-${Date.now()}@shop.example`, disabled.email]) {
    const res = await resetFor(browser, email);
    answers.push({ status: res.status, text: res.text.replace(/name="csrf" value="[^"]+"/, '') });
  }
  expect(answers[1]).toEqual(answers[0]);
  expect(answers[2]).toEqual(answers[0]);
  expect(answers[0]!.status).toBe(200);
  expect(await resetLinksOf(disabled.email)).toEqual([]);
  const [first] = await resetLinksOf(user.email);
  expect(first).toMatch(new RegExp(`^${web.url}/password-reset/[A-Za-z0-9_-]{43}$`));
  const token = first!.split('/').pop()!;
  expect((await sql(`select 1 from portal_password_resets where id = encode(sha256(?::bytea), 'hex')`, [token])).length).toBe(1);
  expect(JSON.stringify(await sql(`select * from portal_password_resets`))).not.toContain(token);

  // A newer request replaces the first link.
  await resetFor(browser, user.email);
  const links = await resetLinksOf(user.email);
  expect(links).toHaveLength(2);
  expect(links[0]).toBe('gone');
  expect((await browser.get(new URL(first!).pathname)).status).toBe(410);
  const path = new URL(links[1]!).pathname;

  // Lock the account, then reset: the lock-out is cleared and every session ends.
  for (let i = 0; i < 5; i++) await new PortalClient(web.url).signIn(user.email, `wrong-${i}`);
  expect((await new PortalClient(web.url).signIn(user.email, user.password)).status).toBe(429);
  const form = await browser.get(path);
  expect(form.status).toBe(200);
  expect(form.headers.get('referrer-policy')).toBe('strict-origin');
  const set = (password: string, confirm = password) => browser.post(path, { csrf: PortalClient.csrfOf(form.text), new_password: password, confirm_password: confirm });
  expect((await set('letmein12345')).text).toMatch(/too common/);
  const done = await set('Quiet-Harbor-Maple-58');
  expect({ status: done.status, location: done.headers.get('location') }).toEqual({ status: 303, location: '/sign-in?reset=done' });
  expect((await browser.get('/sign-in?reset=done')).text).toContain('Your password is changed');
  expect((await signedIn.get('/payments')).headers.get('location')).toBe('/sign-in');
  expect((await new PortalClient(web.url).signIn(user.email, 'Quiet-Harbor-Maple-58')).status).toBe(303);
  // Single use.
  expect((await browser.get(path)).status).toBe(410);
  expect((await set('Another-Quiet-Harbor-59')).status).toBe(410);
  const actions = (await audits(await userId(user.email))).map((r) => r.action);
  expect(actions.filter((a) => a.startsWith('portal.password_reset'))).toEqual(['portal.password_reset_request', 'portal.password_reset_request', 'portal.password_reset']);

  // Expiry: a link past its 30 minutes no longer works.
  await resetFor(browser, user.email);
  const late = new URL((await resetLinksOf(user.email)).at(-1)!).pathname;
  await sql(`update portal_password_resets set expires_at = now() - interval '1 second' where id = encode(sha256(?::bytea), 'hex')`, [late.split('/').pop()!]);
  expect((await browser.get(late)).status).toBe(410);
});

test("the reset email is sent by the worker to the user's own address (not the merchant's), with the link; the outbox row holds no link", async () => {
  const user = await newPortalUser(h.orm, m.id);
  expect((await resetFor(new PortalClient(web.url), user.email)).status).toBe(200);
  const sent = await until('the reset email sent', async () => (await sql<{ id: string; status: string; environment: string }>(`select n.id, n.status, n.environment from notifications n join portal_users u on u.id = n.resource_id where n.kind = 'portal_password_reset' and u.email = ? and n.status = 'sent'`, [user.email]))[0], 30_000);
  expect(sent.environment).toBe('live');
  const [attempt] = await sql<{ provider_message_id: string }>(`select provider_message_id from notification_attempts where notification_id = ?`, [sent.id]);
  // The message as written (quoted-printable: its soft line breaks taken out).
  const mail = fs.readFileSync(path.join(dataDir, 'outbox', attempt!.provider_message_id.slice('file:'.length)), 'utf8').replace(/=\r?\n/g, '');
  expect(mail).toContain(`To: ${user.email}`);
  expect(mail).toMatch(/^Subject: Reset your merchant portal password$/m);
  const [link] = await resetLinksOf(user.email);
  expect(mail).toContain(link);
  expect(JSON.stringify(await sql(`select * from notifications where id = ?`, [sent.id]))).not.toContain(link!.split('/').pop());
  expect((await new PortalClient(web.url).get(new URL(link!).pathname)).status).toBe(200);
});
