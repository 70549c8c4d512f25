/**
 * The merchant's notification email on the command line (INTERFACE "Admin command line, continued";
 * docs/notifications.md): `merchants create --name NAME [--email EMAIL]` and
 * `merchants set ID --notification-email EMAIL` (`""` clears it), run as child processes against the
 * suite's PostgreSQL. A bad address exits 1 and changes nothing.
 */
import { startHarness, type Harness } from '../support/harness';
import { runCli } from '../support/run-cli';
import { AUDIT_FLAGS } from '../support/cli-results';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(() => h?.close());
import { findPortalUserByEmail } from '../../src/persistence/portal/portal-user-store';
import { verifyPassword } from '../../src/support/password';

const cli = (...args: string[]) => runCli(h.taskQueue, ...args);
const stored = async (id: string) => (await h.orm.em.getConnection().execute<{ e: string | null }[]>(`select notification_email as e from merchants where id = ?`, [id]))[0]?.e;

test('merchants create --email: the merchant and its keys, where its notifications go, and its first portal user (password printed once, only its argon2id hash stored)', async () => {
  const address = `ops-${Date.now().toString(36)}@mailshop.example`;
  const result = await cli('merchants', 'create', '--name', 'Mail Shop', '--email', ` ${address} `);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const created = JSON.parse(result.stdout);
  expect(Object.keys(created).sort()).toEqual(['id', 'live_key', 'notification_email', 'portal_user', 'test_key']);
  expect(created.notification_email).toBe(address);
  expect(await stored(created.id)).toBe(address);
  expect(created.portal_user).toEqual({ id: expect.stringMatching(/^usr_/), email: address, password: expect.any(String) });
  const user = await findPortalUserByEmail(h.orm, address);
  expect(user?.merchantId).toBe(created.id);
  expect(user?.passwordHash).toMatch(/^\$argon2id\$/);
  expect(await verifyPassword(user!.passwordHash, created.portal_user.password)).toBe(true);

  // The same email again: refused before anything is created.
  const before = (await h.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from merchants`))[0].n;
  const again = await cli('merchants', 'create', '--name', 'Mail Shop 2', '--email', address);
  expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 1, stdout: '' });
  expect(again.stderr).toContain('already exists');
  expect((await h.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from merchants`))[0].n).toBe(before);
});

test('merchants set --notification-email: set, shown, changed, cleared with ""', async () => {
  const m = await h.merchant();
  const set = await cli('merchants', 'set', m.id, '--notification-email', 'finance@shop.example', ...AUDIT_FLAGS);
  expect({ code: set.code, stderr: set.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(set.stdout)).toMatchObject({ id: m.id, object: 'merchant', notification_email: 'finance@shop.example' });
  expect(await stored(m.id)).toBe('finance@shop.example');

  const cleared = await cli('merchants', 'set', m.id, '--notification-email', '', ...AUDIT_FLAGS);
  expect(cleared.code).toBe(0);
  expect(JSON.parse(cleared.stdout).notification_email).toBeUndefined();
  expect(await stored(m.id)).toBeNull();
});

test.each([
  [['merchants', 'create', '--name', 'Bad Mail', '--email', 'not-an-address']],
  [['merchants', 'set', 'MERCHANT', '--notification-email', 'ops@']],
  [['merchants', 'set', 'MERCHANT', '--notification-email', 'Ops <ops@shop.example>']],
])('%j: exit 1, a message naming the option, nothing changed', async (args) => {
  const m = await h.merchant();
  const before = (await h.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from merchants`))[0].n;
  const result = await cli(...args.map((a) => (a === 'MERCHANT' ? m.id : a)), ...(args[0] === 'merchants' && args[1] === 'set' ? AUDIT_FLAGS : []));
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
  expect(result.stderr).toMatch(/^error: --(email|notification-email) must be an email address/);
  expect(await stored(m.id)).toBeNull();
  expect((await h.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from merchants`))[0].n).toBe(before);
});
