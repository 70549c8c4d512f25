/**
 * The Users page with roles in headless Chromium (issue 47, finding 1): an owner sees each user's
 * role, changes a colleague's role with its select and button (the notice, the new role, the audit
 * row), sees a user an operator disabled as "Disabled by an operator" with no Enable button; a
 * viewer's page offers no change. axe-core finds no serious or critical violation on any of them,
 * and no Content-Security-Policy or console problem on the way.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { collectPageProblems, launchChromium, screenshotsDir } from '../support/chromium';
import { startHarness, type Harness } from '../support/harness';
import { axeViolations } from '../support/axe';
import { newPortalUser, startPortalWeb, type PortalWeb } from '../support/portal-web';
import { runCli } from '../support/run-cli';

const SHOTS = screenshotsDir('portal-roles');

let h: Harness;
let web: PortalWeb;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  h = await startHarness({ worker: false });
  web = await startPortalWeb(h);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await h?.close();
});

const idOf = async (email: string) => (await h.orm.em.getConnection().execute<{ id: string }[]>(`select id from portal_users where email = ?`, [email]))[0]!.id;

async function signedInPage(email: string, password: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  collectPageProblems(page, problems);
  await page.goto(`${web.url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Payments (sandbox)' }).waitFor();
  await page.getByRole('link', { name: 'Users' }).click();
  await page.getByRole('heading', { name: 'Users' }).waitFor();
  return page;
}

test('an owner changes a colleague’s role from the Users page; an operator’s disable shows, with no Enable; a viewer sees no change to make; axe finds nothing serious', async () => {
  const m = await h.merchant();
  const owner = await newPortalUser(h.orm, m.id, 'owner');
  const developer = await newPortalUser(h.orm, m.id, 'developer');
  const viewer = await newPortalUser(h.orm, m.id, 'viewer');
  const stolen = await newPortalUser(h.orm, m.id, 'admin');
  const stolenId = await idOf(stolen.email);
  const developerId = await idOf(developer.email);
  expect((await runCli(h.taskQueue, 'users', 'disable', stolenId, '--reason', 'laptop stolen', '--operator', 'alice')).code).toBe(0);
  const found: Record<string, string[]> = {};

  const page = await signedInPage(owner.email, owner.password);
  const row = page.locator(`tr[id="${developerId}"]`);
  await expect(row.locator('td.role').innerText()).resolves.toMatch(/^Developer/);
  await expect(page.locator(`tr[id="${stolenId}"]`).innerText()).resolves.toContain('Disabled by an operator: ask support to enable it.');
  expect(await page.getByRole('button', { name: `Enable ${stolen.email}` }).count()).toBe(0);
  found.owner = await axeViolations(page);
  await page.screenshot({ path: path.join(SHOTS, 'portal-users-roles.png'), fullPage: true });

  await page.getByLabel(`Role of ${developer.email}`, { exact: true }).selectOption('admin');
  await page.getByRole('button', { name: `Change role of ${developer.email}` }).click();
  await page.getByText(`${developer.email} is now admin.`).waitFor();
  await expect(page.locator(`tr[id="${developerId}"] td.role`).innerText()).resolves.toMatch(/^Admin/);
  found.ownerNotice = await axeViolations(page);
  const audit = await h.orm.em.getConnection().execute<{ operator: string; state_before: unknown; state_after: unknown }[]>(
    `select operator, state_before, state_after from operator_audit where payment_id = ? and action = 'portal_user.set_role'`,
    [developerId],
  );
  expect(audit).toEqual([{ operator: `portal:${owner.email}`, state_before: { role: 'developer' }, state_after: { role: 'admin' } }]);
  await page.context().close();

  const viewerPage = await signedInPage(viewer.email, viewer.password);
  await expect(viewerPage.locator('#your-role').innerText()).resolves.toBe('Your role: Viewer');
  expect(await viewerPage.locator('form[action^="/users/"]').count()).toBe(0);
  found.viewer = await axeViolations(viewerPage);
  await viewerPage.context().close();

  expect(found).toEqual({ owner: [], ownerNotice: [], viewer: [] });
  expect(problems).toEqual([]);
}, 90_000);
