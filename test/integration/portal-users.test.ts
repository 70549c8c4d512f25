import { startHarness, type Harness } from '../support/harness';
import { newPortalUser, signedInUser, startPortalWeb, type PortalWeb } from '../support/portal-web';
import { PortalClient } from '../support/portal-client';
import { runCli } from '../support/run-cli';

/**
 * Ending a portal user's access (issue 30; docs/security.md "Disabling a portal user"): `users
 * disable|enable|revoke-sessions` and the portal's Users page, each through the audited path
 * (operator_audit portal_user.*: who, why, the state before and after).
 */

let h: Harness;
let web: PortalWeb;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  web = await startPortalWeb(h);
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

const cli = (...args: string[]) => runCli(h.taskQueue, ...args);
const userIdOf = async (email: string) => (await h.orm.em.getConnection().execute<{ id: string }[]>(`select id from portal_users where email = ?`, [email]))[0]!.id;
/** The user's access changes as audited (its creation's row, portal_user.create, aside). */
const audits = (userId: string) =>
  h.orm.em.getConnection().execute<{ action: string; operator: string; reason: string; state_before: unknown; state_after: unknown; merchant_id: string }[]>(
    `select action, operator, reason, state_before, state_after, merchant_id from operator_audit where payment_id = ? and action like 'portal_user.%' and action <> 'portal_user.create' order by created_at`,
    [userId],
  );
/** Whether the client's session still opens a page. */
const stillIn = async (client: PortalClient) => (await client.get('/payments')).status === 200;

test('users disable: the sessions end at once, sign-in is refused with the generic message, an audit row with operator, reason, before and after; enable lets it sign in again', async () => {
  const m = await h.merchant();
  const { client, email, password } = await signedInUser(web.url, h.orm, m.id);
  const second = new PortalClient(web.url);
  expect((await second.signIn(email, password)).status).toBe(303);
  const id = await userIdOf(email);

  const noReason = await cli('users', 'disable', id);
  expect(noReason.code).toBe(1);
  expect(noReason.stderr).toMatch(/--reason is required/);
  expect(await stillIn(client)).toBe(true);
  const badId = await cli('users', 'disable', 'someone', '--reason', 'x');
  expect(badId.code).toBe(1);
  expect(badId.stderr).toMatch(/portal user id \(usr_…\) is required/);
  const unknown = await cli('users', 'disable', 'usr_000000000000000000000000', '--reason', 'x');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/does not exist/);

  const disabled = await cli('users', 'disable', id, '--reason', 'laptop stolen', '--operator', 'alice');
  expect(disabled.code).toBe(0);
  expect(JSON.parse(disabled.stdout)).toEqual({ id, email, merchant_id: m.id, role: 'owner', status: 'disabled', sessions_revoked: 2 });
  expect(await stillIn(client)).toBe(false);
  expect(await stillIn(second)).toBe(false);
  const refused = await new PortalClient(web.url).signIn(email, password);
  expect(refused.status).toBe(401);
  expect(refused.text).toContain('The email or password is not right.');
  const again = await cli('users', 'disable', id, '--reason', 'twice');
  expect(again.code).toBe(1);
  expect(again.stderr).toMatch(/already disabled/);
  const list = JSON.parse((await cli('users', 'list', '--merchant', m.id)).stdout) as { data: { id: string; status: string }[] };
  expect(list.data.find((u) => u.id === id)!.status).toBe('disabled');

  const enabled = await cli('users', 'enable', id, '--reason', 'laptop found');
  expect(enabled.code).toBe(0);
  expect((await new PortalClient(web.url).signIn(email, password)).status).toBe(303);
  expect(await audits(id)).toEqual([
    { action: 'portal_user.disable', operator: 'alice', reason: 'laptop stolen', state_before: { status: 'active' }, state_after: { status: 'disabled', sessions_revoked: 2 }, merchant_id: m.id },
    { action: 'portal_user.enable', operator: expect.stringMatching(/^cli:/), reason: 'laptop found', state_before: { status: 'disabled' }, state_after: { status: 'active', sessions_revoked: 0 }, merchant_id: m.id },
  ]);
});

test('users revoke-sessions: every session ends, the user can sign in again; audited', async () => {
  const m = await h.merchant();
  const { client, email, password } = await signedInUser(web.url, h.orm, m.id);
  const id = await userIdOf(email);
  const res = await cli('users', 'revoke-sessions', id, '--reason', 'password shared');
  expect(res.code).toBe(0);
  expect(JSON.parse(res.stdout)).toEqual({ id, email, merchant_id: m.id, role: 'owner', status: 'active', sessions_revoked: 1 });
  expect(await stillIn(client)).toBe(false);
  expect((await new PortalClient(web.url).signIn(email, password)).status).toBe(303);
  expect(await audits(id)).toEqual([
    { action: 'portal_user.revoke_sessions', operator: expect.stringMatching(/^cli:/), reason: 'password shared', state_before: { status: 'active' }, state_after: { status: 'active', sessions_revoked: 1 }, merchant_id: m.id },
  ]);
  const auditList = JSON.parse((await cli('audit', 'list', '--action', 'portal_user.revoke_sessions', '--limit', '5')).stdout) as { data: { payment_id: string }[] };
  expect(auditList.data.map((r) => r.payment_id)).toContain(id);
});

test("the Users page: the merchant's own users with status and last sign-in; disable, enable and end sessions of a colleague, audited as portal:<email>; never oneself, never another merchant's user", async () => {
  const m = await h.merchant();
  const me = await signedInUser(web.url, h.orm, m.id);
  const colleague = await signedInUser(web.url, h.orm, m.id);
  const colleagueId = await userIdOf(colleague.email);
  const myId = await userIdOf(me.email);
  const other = await h.merchant();
  const stranger = await newPortalUser(h.orm, other.id);
  const strangerId = await userIdOf(stranger.email);

  const page = await me.client.get('/users');
  expect(page.status).toBe(200);
  expect(page.text).toContain(me.email);
  expect(page.text).toContain(colleague.email);
  expect(page.text).not.toContain(stranger.email);
  expect(page.text).toMatch(new RegExp(`<tr id="${colleagueId}">[\\s\\S]*?<td class="status">Active</td>[\\s\\S]*?<time`));
  expect(page.text).toContain(`action="/users/${colleagueId}/disable"`);
  expect(page.text).not.toContain(`action="/users/${myId}/disable"`);
  const form = PortalClient.formOf(page.text);

  // CSRF: without the token, nothing changes.
  expect((await me.client.post(`/users/${colleagueId}/disable`, { environment: form.environment })).status).toBe(403);
  expect(await stillIn(colleague.client)).toBe(true);
  // Not oneself; not another merchant's user.
  const self = await me.client.post(`/users/${myId}/disable`, form);
  expect(self.status).toBe(400);
  expect(self.text).toContain('You cannot disable yourself');
  expect(await stillIn(me.client)).toBe(true);
  const foreign = await me.client.post(`/users/${strangerId}/disable`, form);
  expect(foreign.status).toBe(400);
  expect(foreign.text).toContain('does not exist');
  expect(await audits(strangerId)).toEqual([]);

  const ended = await me.client.post(`/users/${colleagueId}/revoke-sessions`, form);
  expect(ended.status).toBe(200);
  expect(ended.text).toContain('sessions have ended');
  expect(await stillIn(colleague.client)).toBe(false);
  expect((await colleague.client.signIn(colleague.email, colleague.password)).status).toBe(303);

  const disabled = await me.client.post(`/users/${colleagueId}/disable`, form);
  expect(disabled.status).toBe(200);
  expect(disabled.text).toMatch(new RegExp(`<tr id="${colleagueId}">[\\s\\S]*?<td class="status">Disabled</td>`));
  expect(await stillIn(colleague.client)).toBe(false);
  expect((await colleague.client.signIn(colleague.email, colleague.password)).status).toBe(401);
  expect((await me.client.post(`/users/${colleagueId}/enable`, form)).status).toBe(200);
  expect((await colleague.client.signIn(colleague.email, colleague.password)).status).toBe(303);

  expect((await audits(colleagueId)).map((r) => [r.action, r.operator, r.reason, r.merchant_id])).toEqual([
    ['portal_user.revoke_sessions', `portal:${me.email}`, 'portal: Users', m.id],
    ['portal_user.disable', `portal:${me.email}`, 'portal: Users', m.id],
    ['portal_user.enable', `portal:${me.email}`, 'portal: Users', m.id],
  ]);
});
