import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebApp } from '../../src/web/app';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';
import { PortalClient } from '../support/portal-client';
import { cliEnv, execCli, runCli, type CliResult } from '../support/run-cli';
import { AUDIT_FLAGS } from '../support/cli-results';
import { randomBase62 } from '../../src/support/new-id';

/**
 * The merchant portal over HTTP (src/web/portal; docs/security.md "Merchant portal"): the `users`
 * command, sign-in and lock-out, the cookie, CSRF and Origin checks, the sandbox/live switch and its
 * TEST MODE band, and Developers → API keys acting through the key services (audit rows written,
 * the API honouring the new, rolled and revoked keys, the secret shown once).
 */

let h: Harness;
const servers: http.Server[] = [];

/** The web app on its own port, told its own public URL (the Origin check compares with it). */
async function webApp(publicUrl?: (url: string) => string): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on('request', createWebApp(h.deps, { webUrl: publicUrl ? publicUrl(url) : url, sandboxApiUrl: h.urls.sandbox }).callback());
  return url;
}

let url: string;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  url = await webApp();
});
afterAll(async () => {
  for (const s of servers) await new Promise((ok) => s.close(ok));
  await h?.close();
});

const cli = (...args: string[]) => runCli(h.taskQueue, ...args);
/** `users create … --password-stdin` with `password` on stdin (never an argument): as its own process, the password through a pipe. */
function cliWithStdin(password: string, ...args: string[]): Promise<CliResult> {
  return execCli(args, cliEnv(h.taskQueue), { process: true, input: password + '\n' });
}

const email = () => `owner-${randomBase62(8).toLowerCase()}@shop.example`;

/** A merchant and a portal user made by the `users create` command (its generated password). */
async function portalUser(): Promise<{ m: TestMerchant; email: string; password: string }> {
  const m = await h.merchant();
  const address = email();
  const result = await cli('users', 'create', '--merchant', m.id, '--email', address.toUpperCase(), ...AUDIT_FLAGS);
  expect(result.code).toBe(0);
  const out = JSON.parse(result.stdout) as { id: string; email: string; password: string; merchant_id: string };
  expect(out).toEqual({ id: expect.stringMatching(/^usr_/), merchant_id: m.id, email: address, role: 'owner', created_at: expect.any(String), password: expect.any(String) });
  return { m, email: address, password: out.password };
}

async function signedIn(): Promise<{ m: TestMerchant; email: string; client: PortalClient }> {
  const user = await portalUser();
  const client = new PortalClient(url);
  const res = await client.signIn(user.email, user.password);
  expect(res.status).toBe(303);
  return { ...user, client };
}

const audit = (keyId: string) =>
  h.orm.em.getConnection().execute<{ action: string; operator: string; reason: string; request_id: string; environment: string }[]>(
    `select action, operator, reason, request_id, environment from operator_audit where payment_id = ? and operator like 'portal:%' order by created_at`,
    [keyId],
  );

const keyCount = async (merchantId: string) => Number((await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from api_keys where merchant_id = ?`, [merchantId]))[0]!.n);

test('users create: a user with an argon2id hash (never printed), the email lower-cased; a taken email and a short password are refused; users list shows no hash', async () => {
  const { m, email: address } = await portalUser();
  const rows = await h.orm.em.getConnection().execute<{ password_hash: string }[]>(`select password_hash from portal_users where email = ?`, [address]);
  expect(rows[0]!.password_hash).toMatch(/^\$argon2id\$/);
  const again = await cli('users', 'create', '--merchant', m.id, '--email', address, ...AUDIT_FLAGS);
  expect(again.code).toBe(1);
  expect(again.stderr).toMatch(/already exists/);
  const list = await cli('users', 'list', '--merchant', m.id);
  expect(JSON.parse(list.stdout)).toEqual({ object: 'list', data: [{ id: expect.stringMatching(/^usr_/), email: address, role: 'owner', status: 'active', disabled_by: null, created_at: expect.any(String), last_sign_in_at: null, locked_until: null }] });
  expect(list.stdout).not.toMatch(/argon2/);
  const unknown = await cli('users', 'create', '--merchant', 'mer_000000000000000000000000', '--email', email(), ...AUDIT_FLAGS);
  expect(unknown.code).toBe(1);

  // --password-stdin: the password is read from stdin, never printed; a short one is refused.
  const short = await cliWithStdin('too-short', 'users', 'create', '--merchant', m.id, '--email', email(), '--password-stdin', ...AUDIT_FLAGS);
  expect(short.code).toBe(1);
  expect(short.stderr).toMatch(/at least 12 characters/);
  const chosen = `chosen-${randomBase62(16)}`;
  const second = email();
  const given = await cliWithStdin(chosen, 'users', 'create', '--merchant', m.id, '--email', second, '--password-stdin', '--role', 'developer', ...AUDIT_FLAGS);
  expect(given.code).toBe(0);
  expect(JSON.parse(given.stdout)).toEqual({ id: expect.stringMatching(/^usr_/), merchant_id: m.id, email: second, role: 'developer', created_at: expect.any(String) });
  expect(given.stdout + given.stderr).not.toContain(chosen);
  expect((await new PortalClient(url).signIn(second, chosen)).status).toBe(303);
});

test('sign-in: the right password opens a session (cookie __Host-portal_session: HttpOnly, SameSite=Lax, Path=/, no Domain, Secure even over loopback http); a wrong one or an unknown email gets the same generic answer', async () => {
  const { email: address, password } = await portalUser();
  const client = new PortalClient(url);
  const wrong = await client.signIn(address, 'not-the-password');
  expect(wrong.status).toBe(401);
  expect(wrong.text).toContain('The email or password is not right.');
  const unknown = await client.signIn(email(), 'not-the-password');
  expect(unknown.status).toBe(401);
  expect(unknown.text).toContain('The email or password is not right.');
  expect(unknown.text).not.toContain(password);

  const ok = await client.signIn(address, password);
  expect(ok.status).toBe(303);
  expect(ok.headers.get('location')).toBe('/payments');
  const cookie = client.lastSetCookies.find((c) => c.startsWith('__Host-portal_session='))!;
  expect(cookie).toMatch(/; HttpOnly/);
  expect(cookie).toMatch(/; SameSite=Lax/);
  expect(cookie).toMatch(/; Path=\/;/);
  expect(cookie).toMatch(/; Secure/);
  expect(cookie).not.toMatch(/Domain/i);
  const token = client.cookies.get('__Host-portal_session')!;
  // Only the token's sha256 is stored.
  const stored = await h.orm.em.getConnection().execute<{ id: string }[]>(`select id from portal_sessions where id = encode(sha256(?::bytea), 'hex')`, [token]);
  expect(stored).toHaveLength(1);
  const page = await client.get('/developers/api-keys');
  expect(page.status).toBe(200);
  expect(page.text).toContain(address);

  // Sign-out revokes the session: the old cookie no longer works.
  const out = await client.post('/sign-out', { csrf: PortalClient.csrfOf(page.text) });
  expect(out.status).toBe(303);
  const replay = await fetch(`${url}/developers/api-keys`, { redirect: 'manual', headers: { cookie: `__Host-portal_session=${token}` } });
  expect(replay.status).toBe(302);
  expect(replay.headers.get('location')).toBe('/sign-in');
});

test('a session ends after 12 hours: an expired one redirects to sign-in, and its POSTs change nothing', async () => {
  const { m, client } = await signedIn();
  const page = await client.get('/developers/api-keys');
  const row = await h.orm.em.getConnection().execute<{ ttl: number }[]>(
    `select extract(epoch from expires_at - created_at)::int as ttl from portal_sessions where id = encode(sha256(?::bytea), 'hex')`,
    [client.cookies.get('__Host-portal_session')!],
  );
  expect(row[0]!.ttl).toBe(12 * 3600);
  await h.orm.em.getConnection().execute(`update portal_sessions set expires_at = now() - interval '1 second' where id = encode(sha256(?::bytea), 'hex')`, [client.cookies.get('__Host-portal_session')!]);
  expect((await client.get('/developers/api-keys')).headers.get('location')).toBe('/sign-in');
  const before = await keyCount(m.id);
  const post = await client.post('/developers/api-keys', { ...PortalClient.formOf(page.text), scope: 'charges:read' });
  expect({ status: post.status, location: post.headers.get('location') }).toEqual({ status: 303, location: '/sign-in' });
  expect(await keyCount(m.id)).toBe(before);
});

test('the session cookie is Secure when the port is served over https', async () => {
  const { email: address, password } = await portalUser();
  const httpsUrl = await webApp((u) => u.replace('http:', 'https:'));
  const client = new PortalClient(httpsUrl);
  await client.signIn(address, password);
  expect(client.lastSetCookies.find((c) => c.startsWith('__Host-portal_session='))).toMatch(/; Secure/);
});

test('lock-out: the fifth wrong password locks the account for 15 minutes, the page says so, and the right password is refused meanwhile', async () => {
  const { email: address, password } = await portalUser();
  const client = new PortalClient(url);
  for (let i = 0; i < 4; i++) expect((await client.signIn(address, `wrong-${i}`)).status).toBe(401);
  const fifth = await client.signIn(address, 'wrong-5');
  expect(fifth.status).toBe(429);
  expect(fifth.text).toMatch(/locked for 15 more minutes/);
  const right = await client.signIn(address, password);
  expect(right.status).toBe(429);
  expect(client.cookies.has('__Host-portal_session')).toBe(false);
  await h.orm.em.getConnection().execute(`update portal_sign_in_attempts set locked_until = now() - interval '1 second' where key = encode(sha256(convert_to(?, 'UTF8')), 'hex')`, [address]);
  expect((await client.signIn(address, password)).status).toBe(303);
});

test('a page without a session redirects to sign-in; / goes to Payments when signed in', async () => {
  for (const path of ['/', '/developers/api-keys']) {
    const res = await fetch(url + path, { redirect: 'manual' });
    expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({ path, status: 302, location: '/sign-in' });
  }
  const { client } = await signedIn();
  expect((await client.get('/')).headers.get('location')).toBe('/payments');
  expect((await fetch(`${url}/no-such-page`)).status).toBe(404);
});

test('CSRF: a POST without the token, with a wrong one, or from a foreign Origin is refused and changes nothing; sign-in needs its form token too', async () => {
  const { m, email: address, client } = await signedIn();
  const page = await client.get('/developers/api-keys');
  const { csrf, environment } = PortalClient.formOf(page.text);
  const before = await keyCount(m.id);
  expect((await client.post('/developers/api-keys', { environment, scope: 'charges:read' })).status).toBe(403);
  expect((await client.post('/developers/api-keys', { environment, csrf: csrf.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), scope: 'charges:read' })).status).toBe(403);
  expect((await client.post('/developers/api-keys', { environment, csrf, scope: 'charges:read' }, { origin: 'https://evil.example' })).status).toBe(403);
  expect((await client.post('/environment', { csrf, environment: 'live' }, { origin: 'null' })).status).toBe(403);
  expect(await keyCount(m.id)).toBe(before);
  // The sign-in form without its token (or from elsewhere) is refused before any password check.
  const fresh = new PortalClient(url);
  expect((await fresh.post('/sign-in', { email: address, password: 'x' })).status).toBe(403);
  expect((await fresh.post('/sign-in', { email: address, password: 'x', csrf: 'A'.repeat(43) })).status).toBe(403);
  // No session at all: to sign-in.
  const none = await fresh.post('/developers/api-keys', { csrf, scope: 'charges:read' });
  expect({ status: none.status, location: none.headers.get('location') }).toEqual({ status: 303, location: '/sign-in' });
  expect(await keyCount(m.id)).toBe(before);
});

test('the environment switch: sandbox pages carry the TEST MODE band, live pages none; the keys listed are the environment’s', async () => {
  const { m, client } = await signedIn();
  const sandbox = await client.get('/developers/api-keys');
  expect(sandbox.text).toMatch(/<div class="test-mode" role="status" id="test-mode">TEST MODE/);
  expect(sandbox.text).toContain('svc_test_');
  expect(sandbox.text).not.toContain('svc_live_');
  expect(sandbox.text).not.toContain(m.testKey);
  const switched = await client.post('/environment', { csrf: PortalClient.csrfOf(sandbox.text), environment: 'live' });
  expect(switched.status).toBe(303);
  const live = await client.get('/developers/api-keys');
  expect(live.text).not.toContain('TEST MODE');
  expect(live.text).toContain('<span class="env env-live" id="environment">Live</span>');
  expect(live.text).toContain('svc_live_');
  expect(live.text).not.toContain('svc_test_');
  expect(live.text).not.toContain(m.liveKey);
  await client.post('/environment', { csrf: PortalClient.csrfOf(live.text), environment: 'sandbox' });
  expect((await client.get('/developers/api-keys')).text).toContain('TEST MODE');
});

test('API keys: create (scopes required), roll and revoke through the key services, each with its audit row; the API honours them; the secret is shown once', async () => {
  const { m, email: address, client } = await signedIn();
  let page = await client.get('/developers/api-keys');
  const form = PortalClient.formOf(page.text);
  const before = await keyCount(m.id);

  const none = await client.post('/developers/api-keys', form);
  expect(none.status).toBe(400);
  expect(none.text).toContain('Choose at least one scope.');
  expect((await client.post('/developers/api-keys', { ...form, scope: 'everything' })).status).toBe(400);
  expect(await keyCount(m.id)).toBe(before);

  const created = await client.post('/developers/api-keys', { ...form, scope: ['balances:read', 'charges:read'] });
  expect(created.status).toBe(200);
  const secret = /<output id="secret" class="secret">(svc_test_[^<]+)<\/output>/.exec(created.text)![1]!;
  const keyId = /Secret of (key_[0-9A-Za-z]+)/.exec(created.text)![1]!;
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: secret })).status).toBe(200);
  expect(await audit(keyId)).toEqual([{ action: 'api_key.create', operator: `portal:${address}`, reason: 'portal: Developers → API keys', request_id: created.headers.get('request-id'), environment: 'sandbox' }]);
  // Never again: not on the list page, not in the database.
  page = await client.get('/developers/api-keys');
  expect(page.text).toContain(keyId);
  expect(page.text).toContain(secret.slice(-4));
  expect(page.text).not.toContain(secret);
  const stored = JSON.stringify(await h.orm.em.getConnection().execute(`select * from api_keys where id = ?`, [keyId]));
  expect(stored).not.toContain(secret);

  // Roll: an overlap above 7 days is not offered and refused; "end it now" stops the old key at once.
  expect((await client.post(`/developers/api-keys/${keyId}/roll`, { ...form, overlap: '30d' })).status).toBe(400);
  const rolled = await client.post(`/developers/api-keys/${keyId}/roll`, { ...form, overlap: '0' });
  expect(rolled.status).toBe(200);
  const newSecret = /<output id="secret" class="secret">(svc_test_[^<]+)<\/output>/.exec(rolled.text)![1]!;
  const newId = /Secret of (key_[0-9A-Za-z]+)/.exec(rolled.text)![1]!;
  expect(newSecret).not.toBe(secret);
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: newSecret })).status).toBe(200);
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: secret })).status).toBe(401);
  expect((await audit(keyId)).map((r) => [r.action, r.operator, r.request_id])).toEqual([
    ['api_key.create', `portal:${address}`, created.headers.get('request-id')],
    ['api_key.roll', `portal:${address}`, rolled.headers.get('request-id')],
  ]);

  // Revoke: the API refuses the key at once.
  const revoked = await client.post(`/developers/api-keys/${newId}/revoke`, form);
  expect(revoked.status).toBe(200);
  expect(revoked.text).toContain('The key is revoked');
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: newSecret })).status).toBe(401);
  expect((await audit(newId)).map((r) => r.action)).toEqual(['api_key.revoke']);
  // Revoking again, or another merchant's key, or a live key from the sandbox view, changes nothing.
  expect((await client.post(`/developers/api-keys/${newId}/revoke`, form)).status).toBe(400);
  const other = await h.merchant();
  const otherKey = (await h.orm.em.getConnection().execute<{ id: string }[]>(`select id from api_keys where merchant_id = ? limit 1`, [other.id]))[0]!.id;
  expect((await client.post(`/developers/api-keys/${otherKey}/revoke`, form)).status).toBe(400);
  expect((await client.post(`/developers/api-keys/${otherKey}/roll`, { ...form, overlap: '0' })).status).toBe(400);
  expect(await audit(otherKey)).toEqual([]);
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: other.testKey })).status).toBe(200);
  const liveKey = (await h.orm.em.getConnection().execute<{ id: string }[]>(`select id from api_keys where merchant_id = ? and environment = 'live'`, [m.id]))[0]!.id;
  expect((await client.post(`/developers/api-keys/${liveKey}/revoke`, form)).status).toBe(400);
  expect((await h.request('live', 'GET', '/v1/balances', { key: m.liveKey })).status).toBe(200);
});

test('access is audited: a failed sign-in of a known user, the sign-in, the environment switch and the sign-out each write an operator_audit row as portal:<email> with the web request id', async () => {
  const { m, email: address, password } = await portalUser();
  const client = new PortalClient(url);
  const wrong = await client.signIn(address, 'not-the-password');
  const ok = await client.signIn(address, password);
  const page = await client.get('/developers/api-keys');
  const switched = await client.post('/environment', { csrf: PortalClient.csrfOf(page.text), environment: 'live', return: '/developers/api-keys' });
  expect(switched.headers.get('location')).toBe('/developers/api-keys');
  const out = await client.post('/sign-out', { csrf: PortalClient.csrfOf(page.text) });
  expect(out.status).toBe(303);
  const rows = await h.orm.em.getConnection().execute<{ action: string; operator: string; request_id: string; environment: string; state_after: unknown; merchant_id: string }[]>(
    `select action, operator, request_id, environment, state_after, merchant_id from operator_audit where merchant_id = ? and action like 'portal.%' order by created_at`,
    [m.id],
  );
  expect(rows).toEqual([
    { action: 'portal.sign_in_failed', operator: `portal:${address}`, request_id: wrong.headers.get('request-id'), environment: 'sandbox', state_after: { locked_until: null }, merchant_id: m.id },
    { action: 'portal.sign_in', operator: `portal:${address}`, request_id: ok.headers.get('request-id'), environment: 'sandbox', state_after: null, merchant_id: m.id },
    { action: 'portal.switch_environment', operator: `portal:${address}`, request_id: switched.headers.get('request-id'), environment: 'live', state_after: { environment: 'live' }, merchant_id: m.id },
    { action: 'portal.sign_out', operator: `portal:${address}`, request_id: out.headers.get('request-id'), environment: 'live', state_after: null, merchant_id: m.id },
  ]);
  // An unknown email has no merchant: nothing is written for it (the password never is).
  expect(JSON.stringify(rows)).not.toContain(password);
});

test('the environment switch comes back to the list the page belongs to; anything else goes home', async () => {
  const { client } = await signedIn();
  const page = await client.get('/developers/api-keys');
  const csrf = PortalClient.csrfOf(page.text);
  const to = async (back: string) => (await client.post('/environment', { csrf, environment: 'sandbox', return: back })).headers.get('location');
  expect(await to('/webhooks/we_123/deliveries')).toBe('/webhooks');
  expect(await to('/payments')).toBe('/payments');
  expect(await to('//evil.example/x')).toBe('/payments');
  expect(await to('https://evil.example/')).toBe('/payments');
});

test('merchants create --email --password-stdin: the first portal user with the password given on stdin (never printed), who can sign in', async () => {
  const chosen = `first-${randomBase62(16)}`;
  const address = email();
  const created = await cliWithStdin(chosen, 'merchants', 'create', '--name', 'Stdin Shop', '--email', address, '--password-stdin');
  expect(created.code).toBe(0);
  const out = JSON.parse(created.stdout) as { id: string; portal_user: Record<string, string> };
  expect(out.portal_user).toEqual({ id: expect.stringMatching(/^usr_/), email: address });
  expect(created.stdout + created.stderr).not.toContain(chosen);
  const client = new PortalClient(url);
  const res = await client.signIn(address, chosen);
  expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 303, location: '/payments' });
  expect((await client.get('/settings')).text).toContain(out.id);
});
