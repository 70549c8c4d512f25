import type { PortalRole } from '../../src/domain/portal-roles';
import { createPortalUser } from '../../src/persistence/portal/portal-user-store';
import { randomBase62 } from '../../src/support/new-id';
import { hashPassword } from '../../src/support/password';
import { startHarness, type Harness } from '../support/harness';
import { PortalClient } from '../support/portal-client';
import { startPortalWeb, type PortalWeb } from '../support/portal-web';
import { runCli } from '../support/run-cli';

/**
 * Portal roles (issue 47, finding 1; src/domain/portal-roles.ts): only an owner or an admin changes
 * users, never themself, an admin never an owner; a user an operator disabled is enabled only by an
 * operator; the last active owner is kept; developers manage webhooks and sandbox keys, viewers only
 * read; every refusal is 403 (400 for oneself) and changes nothing; `users set-role` is audited.
 */

let h: Harness;
let web: PortalWeb;
/** One argon2id hash for every user of the file (hashing is slow on purpose). */
let hash: string;
const PASSWORD = `pw-${randomBase62(20)}`;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  web = await startPortalWeb(h);
  hash = await hashPassword(PASSWORD);
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

const sql = <T>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const cli = (...args: string[]) => runCli(h.taskQueue, ...args);

interface Member {
  id: string;
  email: string;
  client: PortalClient;
}

/** A user of the merchant with `role`; signed in (sandbox) unless `signIn` is false. */
async function member(merchantId: string, role: PortalRole, signIn = true): Promise<Member> {
  const email = `${role}-${randomBase62(8).toLowerCase()}@shop.example`;
  const user = await createPortalUser(h.orm, merchantId, email, hash, undefined, role);
  const client = new PortalClient(web.url);
  if (signIn) expect((await client.signIn(email, PASSWORD)).status).toBe(303);
  return { id: user.id, email, client };
}

/** The fields a form of `path` carries (its environment and the session's CSRF token), read from the page as a browser would. */
async function guard(client: PortalClient, path = '/users'): Promise<{ environment: string; csrf: string }> {
  const page = await client.get(path);
  const environment = /id="environment">(Sandbox|Live)</.exec(page.text)![1]!.toLowerCase();
  return { environment, csrf: PortalClient.csrfOf(page.text) };
}

const roleOf = async (id: string) => (await sql<{ role: string; disabled_by: string | null }>(`select role, disabled_by from portal_users where id = ?`, [id]))[0]!;
/** The merchant's audited changes (its users' sign-ins and switches, `portal.*`, aside). */
const auditCount = async (merchantId: string) => Number((await sql<{ n: string }>(`select count(*) as n from operator_audit where merchant_id = ? and action not like 'portal.%'`, [merchantId]))[0]!.n);
const userAudits = (id: string) =>
  sql<{ action: string; operator: string; reason: string; state_before: unknown; state_after: unknown }>(
    `select action, operator, reason, state_before, state_after from operator_audit where payment_id = ? and action like 'portal_user.%' and action <> 'portal_user.create' order by created_at`,
    [id],
  );
const stillIn = async (client: PortalClient) => (await client.get('/payments')).status === 200;

test('finding 1: a user an operator disabled is not enabled by a colleague (403, still disabled; only `users enable` brings it back); a viewer or a developer cannot disable a colleague (403, nothing changed)', async () => {
  const m = await h.merchant();
  const owner = await member(m.id, 'owner');
  const developer = await member(m.id, 'developer');
  const viewer = await member(m.id, 'viewer');
  const stolen = await member(m.id, 'admin');
  const colleague = await member(m.id, 'developer');

  expect((await cli('users', 'disable', stolen.id, '--reason', 'laptop stolen', '--operator', 'alice')).code).toBe(0);
  const before = await auditCount(m.id);
  // On 83c79c5 this answered 200 and the stolen laptop's user signed in again.
  const enabled = await owner.client.post(`/users/${stolen.id}/enable`, await guard(owner.client));
  expect(enabled.status).toBe(403);
  expect(enabled.text).toContain('This user was disabled by an operator: only an operator can enable it. Ask support. Nothing was changed.');
  expect((await new PortalClient(web.url).signIn(stolen.email, PASSWORD)).status).toBe(401);
  expect(await roleOf(stolen.id)).toEqual({ role: 'admin', disabled_by: 'operator' });
  const page = await owner.client.get('/users');
  expect(page.text).toMatch(new RegExp(`<tr id="${stolen.id}">[\\s\\S]*?Disabled by an operator: ask support to enable it\\.`));
  expect(page.text).not.toContain(`action="/users/${stolen.id}/enable"`);

  for (const actor of [developer, viewer]) {
    const users = await actor.client.get('/users');
    expect(users.text).not.toMatch(/action="\/users\/usr_\w+\/(disable|enable|revoke-sessions|role)"/);
    for (const action of ['disable', 'revoke-sessions']) {
      const res = await actor.client.post(`/users/${colleague.id}/${action}`, await guard(actor.client));
      expect(res.status).toBe(403);
      expect(res.text).toContain('cannot change users: only an admin or an owner can. Nothing was changed.');
    }
  }
  expect(await stillIn(colleague.client)).toBe(true);
  expect(await roleOf(colleague.id)).toEqual({ role: 'developer', disabled_by: null });
  expect(await auditCount(m.id)).toBe(before);

  // The operator enables it again; a colleague's disable is the portal's, which an owner may undo.
  expect((await cli('users', 'enable', stolen.id, '--reason', 'laptop found')).code).toBe(0);
  expect((await owner.client.post(`/users/${colleague.id}/disable`, await guard(owner.client))).status).toBe(200);
  expect(await roleOf(colleague.id)).toEqual({ role: 'developer', disabled_by: 'portal' });
  expect((await owner.client.post(`/users/${colleague.id}/enable`, await guard(owner.client))).status).toBe(200);
  expect(await roleOf(colleague.id)).toEqual({ role: 'developer', disabled_by: null });
});

test('the matrix: each role × each portal action through real posts; what a role may not do is 403 and changes nothing', async () => {
  const m = await h.merchant();
  const members: Record<PortalRole, Member> = { owner: await member(m.id, 'owner'), admin: await member(m.id, 'admin'), developer: await member(m.id, 'developer'), viewer: await member(m.id, 'viewer') };
  const target = await member(m.id, 'viewer', false);
  const count = async (table: string, environment: string) => Number((await sql<{ n: string }>(`select count(*) as n from ${table} where merchant_id = ? and environment = ?`, [m.id, environment]))[0]!.n);
  const toLive = async (c: PortalClient) => expect((await c.post('/environment', { csrf: (await guard(c)).csrf, environment: 'live' })).status).toBe(303);
  const toSandbox = async (c: PortalClient) => expect((await c.post('/environment', { csrf: (await guard(c)).csrf, environment: 'sandbox' })).status).toBe(303);
  const hooks = async () => (await sql<{ id: string }>(`select id from webhook_endpoints where merchant_id = ? and environment = 'sandbox' order by created_at limit 1`, [m.id]))[0]?.id;

  const ACTIONS: { name: string; allowed: PortalRole[]; live?: boolean; act: (c: PortalClient, role: PortalRole) => Promise<{ status: number; text: string }>; effect: () => Promise<unknown> }[] = [
    { name: 'open the sandbox API keys page', allowed: ['owner', 'admin', 'developer', 'viewer'], act: (c) => c.get('/developers/api-keys'), effect: async () => 0 },
    { name: 'create a sandbox key', allowed: ['owner', 'admin', 'developer'], act: async (c) => c.post('/developers/api-keys', { ...(await guard(c)), scope: 'charges:read' }), effect: () => count('api_keys', 'sandbox') },
    { name: 'open the live API keys page', allowed: ['owner', 'admin'], live: true, act: (c) => c.get('/developers/api-keys'), effect: async () => 0 },
    { name: 'create a live key', allowed: ['owner', 'admin'], live: true, act: async (c) => c.post('/developers/api-keys', { ...(await guard(c)), scope: 'charges:read' }), effect: () => count('api_keys', 'live') },
    { name: 'register a webhook endpoint', allowed: ['owner', 'admin', 'developer'], act: async (c) => c.post('/webhooks', { ...(await guard(c)), url: 'http://127.0.0.1:9/hook' }), effect: () => count('webhook_endpoints', 'sandbox') },
    { name: 'rotate an endpoint secret', allowed: ['owner', 'admin', 'developer'], act: async (c) => c.post(`/webhooks/${await hooks()}/rotate`, await guard(c)), effect: async () => (await sql<{ n: string }>(`select count(*) as n from operator_audit where merchant_id = ? and action = 'webhook_endpoint.rotate_secret'`, [m.id]))[0]!.n },
    { name: "change a colleague's role", allowed: ['owner', 'admin'], act: async (c, role) => c.post(`/users/${target.id}/role`, { ...(await guard(c)), role: role === 'admin' ? 'developer' : 'viewer' }), effect: () => roleOf(target.id) },
    { name: "end a colleague's sessions", allowed: ['owner', 'admin'], act: async (c) => c.post(`/users/${target.id}/revoke-sessions`, await guard(c)), effect: async () => 0 },
    { name: 'export balance transactions', allowed: ['owner', 'admin', 'developer', 'viewer'], act: async (c) => c.post('/balances/transactions.csv', await guard(c, '/balances')), effect: async () => 0 },
  ];
  // The endpoint the rotations act on, registered by the owner first.
  await ACTIONS[4]!.act(members.owner.client, 'owner');

  const seen: string[] = [];
  for (const action of ACTIONS) {
    for (const role of ['viewer', 'developer', 'admin', 'owner'] as const) {
      const { client } = members[role];
      if (action.live) await toLive(client);
      const before = await action.effect();
      const res = await action.act(client, role);
      const changed = JSON.stringify(await action.effect()) !== JSON.stringify(before);
      seen.push(`${action.name} as ${role}: ${res.status < 400 ? 'done' : res.status}${changed ? ', changed' : ''}`);
      if (!action.allowed.includes(role)) expect(res.text).toContain(`Your role (${role}) cannot`);
      if (action.live) await toSandbox(client);
    }
  }
  const changes = (name: string) => (['create a sandbox key', 'create a live key', 'register a webhook endpoint', 'rotate an endpoint secret', "change a colleague's role"].includes(name) ? ', changed' : '');
  expect(seen).toEqual(ACTIONS.flatMap((a) => (['viewer', 'developer', 'admin', 'owner'] as const).map((r) => `${a.name} as ${r}: ${a.allowed.includes(r) ? `done${changes(a.name)}` : 403}`)));
  // The live nav shows API keys only to those who may open it.
  await toLive(members.developer.client);
  expect((await members.developer.client.get('/payments')).text).not.toContain('href="/developers/api-keys"');
  await toSandbox(members.developer.client);
  expect((await members.developer.client.get('/payments')).text).toContain('href="/developers/api-keys"');
});

test("nobody changes their own role; an admin neither changes an owner nor makes one; the role is audited with before and after and applies at once", async () => {
  const m = await h.merchant();
  const owner = await member(m.id, 'owner');
  const admin = await member(m.id, 'admin');
  const viewer = await member(m.id, 'viewer');
  const before = await auditCount(m.id);

  const self = await owner.client.post(`/users/${owner.id}/role`, { ...(await guard(owner.client)), role: 'viewer' });
  expect(self.status).toBe(400);
  expect(self.text).toContain('You cannot change your own role');
  const selfAdmin = await admin.client.post(`/users/${admin.id}/role`, { ...(await guard(admin.client)), role: 'owner' });
  expect(selfAdmin.status).toBe(400);
  const adminsPage = await admin.client.get('/users');
  expect(adminsPage.text).not.toContain(`action="/users/${owner.id}/`);
  expect(adminsPage.text).not.toContain('<option value="owner"');
  for (const [path, fields] of [
    ['role', { role: 'viewer' }],
    ['disable', {}],
    ['revoke-sessions', {}],
  ] as const) {
    const res = await admin.client.post(`/users/${owner.id}/${path}`, { ...(await guard(admin.client)), ...fields });
    expect(res.status).toBe(403);
    expect(res.text).toContain('Only an owner can change an owner. Nothing was changed.');
  }
  const grant = await admin.client.post(`/users/${viewer.id}/role`, { ...(await guard(admin.client)), role: 'owner' });
  expect(grant.status).toBe(403);
  expect(grant.text).toContain('Only an owner can make another user an owner.');
  const bad = await owner.client.post(`/users/${viewer.id}/role`, { ...(await guard(owner.client)), role: 'superuser' });
  expect(bad.status).toBe(400);
  expect([await roleOf(owner.id), await roleOf(admin.id), await roleOf(viewer.id)].map((r) => r.role)).toEqual(['owner', 'admin', 'viewer']);
  expect(await stillIn(owner.client)).toBe(true);
  expect(await auditCount(m.id)).toBe(before);

  // The owner makes the viewer a developer: it registers an endpoint at once (the session reads the role).
  expect((await viewer.client.post('/webhooks', { ...(await guard(viewer.client)), url: 'http://127.0.0.1:9/hook' })).status).toBe(403);
  const page = await owner.client.get('/users');
  expect(page.text).toMatch(new RegExp(`<tr id="${viewer.id}">[\\s\\S]*?<td class="role">Viewer<br><form method="post" action="/users/${viewer.id}/role"`));
  const promoted = await owner.client.post(`/users/${viewer.id}/role`, { ...(await guard(owner.client)), role: 'developer' });
  expect(promoted.status).toBe(200);
  expect(promoted.text).toContain(`${viewer.email} is now developer.`);
  expect((await viewer.client.post('/webhooks', { ...(await guard(viewer.client)), url: 'http://127.0.0.1:9/hook' })).status).toBe(200);
  expect(await userAudits(viewer.id)).toEqual([{ action: 'portal_user.set_role', operator: `portal:${owner.email}`, reason: 'portal: Users', state_before: { role: 'viewer' }, state_after: { role: 'developer' } }]);
});

test('users CLI: create needs --role once the merchant has a user; set-role is audited; refusals (last owner demoted, same role, bad role, no --operator) write nothing; list shows role and who disabled', async () => {
  const m = await h.merchant();
  const email = () => `cli-${randomBase62(8).toLowerCase()}@shop.example`;
  const ok = (r: { code: number | null; stdout: string; stderr: string }) => {
    expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(r.stdout) as { id: string; role: string };
  };
  const who = ['--reason', 'team change', '--operator', 'ama@ops'];
  const first = ok(await cli('users', 'create', '--merchant', m.id, '--email', email(), ...who));
  expect(first.role).toBe('owner');
  const before = await auditCount(m.id);
  const noRole = await cli('users', 'create', '--merchant', m.id, '--email', email(), ...who);
  expect(noRole.code).toBe(1);
  expect(noRole.stderr).toMatch(/already has portal users: name the new user's role \(owner, admin, developer, viewer\)/);
  const badRole = await cli('users', 'create', '--merchant', m.id, '--email', email(), '--role', 'root', ...who);
  expect(badRole.stderr).toMatch(/--role must be one of owner, admin, developer, viewer/);

  const refusals: [string[], RegExp][] = [
    [['users', 'set-role', first.id, '--role', 'admin', ...who], /last active owner: make another user owner first/],
    [['users', 'set-role', first.id, '--role', 'owner', ...who], /is already owner/],
    [['users', 'set-role', first.id, '--role', 'god', ...who], /--role must be one of/],
    [['users', 'set-role', first.id, ...who], /--role is required/],
    [['users', 'set-role', first.id, '--role', 'viewer', '--reason', 'x'], /--operator is required/],
    [['users', 'set-role', 'usr_nope', '--role', 'viewer', ...who], /portal user id \(usr_…\) is required/],
  ];
  for (const [args, message] of refusals) {
    const res = await cli(...args);
    expect({ args, code: res.code, stderr: res.stderr }).toEqual({ args, code: 1, stderr: expect.stringMatching(message) });
  }
  expect(await auditCount(m.id)).toBe(before);
  expect(await roleOf(first.id)).toEqual({ role: 'owner', disabled_by: null });

  const second = ok(await cli('users', 'create', '--merchant', m.id, '--email', email(), '--role', 'viewer', ...who));
  expect(ok(await cli('users', 'set-role', second.id, '--role', 'owner', '--reason', 'co-founder', '--operator', 'kofi@ops'))).toMatchObject({ id: second.id, role: 'owner' });
  // Two owners: the first may be demoted now; an operator may disable the last owner (a stolen laptop).
  ok(await cli('users', 'set-role', first.id, '--role', 'developer', ...who));
  ok(await cli('users', 'disable', second.id, '--reason', 'laptop stolen'));
  expect(await userAudits(second.id)).toEqual([
    { action: 'portal_user.set_role', operator: 'kofi@ops', reason: 'co-founder', state_before: { role: 'viewer' }, state_after: { role: 'owner' } },
    { action: 'portal_user.disable', operator: expect.stringMatching(/^cli:/), reason: 'laptop stolen', state_before: { status: 'active' }, state_after: { status: 'disabled', sessions_revoked: 0 } },
  ]);
  const list = ok(await cli('users', 'list', '--merchant', m.id)) as unknown as { data: { id: string; role: string; status: string; disabled_by: string | null }[] };
  expect(list.data.map(({ id, role, status, disabled_by }) => ({ id, role, status, disabled_by }))).toEqual([
    { id: first.id, role: 'developer', status: 'active', disabled_by: null },
    { id: second.id, role: 'owner', status: 'disabled', disabled_by: 'operator' },
  ]);
});
