/**
 * Issue 47, finding 6, in headless Chromium (playwright-core, as test/system/portal-browser.test.ts):
 * the Account page's password change (a breached password refused, then a good one; the other
 * browser signed out, this one still in) and the password reset by the link read from the
 * notifications outbox (the email's row, its link opened as the sender opens it). The `__Host-`
 * cookies are kept by the browser over loopback http. No CSP problem on the way, and axe-core finds
 * no serious or critical violation on the Account page, the reset request and the link's page.
 */
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from '../support/axe';
import { collectPageProblems, launchChromium } from '../support/chromium';
import { startHarness, type Harness } from '../support/harness';
import { newPortalUser, startPortalWeb, type PortalWeb } from '../support/portal-web';

let h: Harness;
let web: PortalWeb;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  h = await startHarness({ worker: false });
  web = await startPortalWeb(h);
  browser = await launchChromium();
}, 120_000);
beforeEach(() => {
  problems.length = 0;
});
afterAll(async () => {
  await browser?.close();
  await web?.close();
  await h?.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  collectPageProblems(page, problems);
  return page;
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${web.url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Payments (sandbox)' }).waitFor();
}

test('Account: change the password (a breached one refused); the other browser is signed out, this one stays; axe finds nothing serious', async () => {
  const m = await h.merchant();
  const user = await newPortalUser(h.orm, m.id);
  const page = await newPage();
  const other = await newPage();
  await signIn(page, user.email, user.password);
  await signIn(other, user.email, user.password);
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === '__Host-portal_session')).toMatchObject({ secure: true, httpOnly: true, path: '/', sameSite: 'Lax' });

  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  expect(await page.locator('#sessions tbody tr').count()).toBe(2);
  const found: Record<string, string[]> = { account: await axeViolations(page) };

  const change = async (current: string, next: string) => {
    await page.getByLabel('Current password').fill(current);
    await page.getByLabel('New password', { exact: true }).fill(next);
    await page.getByLabel('New password, again').fill(next);
    await page.getByRole('button', { name: 'Change password' }).click();
  };
  await change(user.password, 'Password2024!');
  await page.getByRole('alert').filter({ hasText: 'too common' }).waitFor();
  found.refused = await axeViolations(page);
  await change(user.password, 'Amber-Glacier-Violin-42');
  await page.getByRole('status').filter({ hasText: 'Your password is changed.' }).waitFor();
  found.changed = await axeViolations(page);
  expect(await page.locator('#sessions tbody tr').count()).toBe(1);

  await other.reload();
  expect(new URL(other.url()).pathname).toBe('/sign-in');
  await page.goto(`${web.url}/payments`);
  expect(new URL(page.url()).pathname).toBe('/payments');
  expect(found).toEqual({ account: [], refused: [], changed: [] });
  // The refused password's answer is a 400, as designed.
  expect(problems.filter((p) => !/account\/password: .*status of 400/.test(p))).toEqual([]);
  await page.context().close();
  await other.context().close();
}, 90_000);

test('reset: "Forgot your password?", the link from the outbox, a new password, then sign in with it; axe finds nothing serious', async () => {
  const m = await h.merchant();
  const user = await newPortalUser(h.orm, m.id);
  const page = await newPage();
  await page.goto(`${web.url}/sign-in`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
  const found: Record<string, string[]> = { request: await axeViolations(page) };
  await page.getByLabel('Email').fill(user.email);
  await page.getByRole('button', { name: 'Email me a link' }).click();
  await page.getByRole('status').filter({ hasText: 'a link to choose a new password is on its way' }).waitFor();
  found.sent = await axeViolations(page);

  const rows = await h.orm.em.getConnection().execute<{ link_sealed: string }[]>(
    `select r.link_sealed from notifications n join portal_password_resets r on r.id = n.source_id join portal_users u on u.id = r.user_id
      where n.kind = 'portal_password_reset' and u.email = ? and n.status = 'pending'`,
    [user.email],
  );
  expect(rows).toHaveLength(1);
  const link = h.deps.secretBox.open(rows[0]!.link_sealed);
  await page.goto(link);
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  found.link = await axeViolations(page);
  await page.getByLabel('New password', { exact: true }).fill('Copper-Meadow-Lantern-17');
  await page.getByLabel('New password, again').fill('Copper-Meadow-Lantern-17');
  await page.getByRole('button', { name: 'Set the new password' }).click();
  await page.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
  found.done = await axeViolations(page);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill('Copper-Meadow-Lantern-17');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Payments (sandbox)' }).waitFor();
  // The link is used: it shows the page that says so.
  await page.goto(link);
  await page.getByRole('heading', { name: 'This link no longer works' }).waitFor();
  found.gone = await axeViolations(page);
  expect(found).toEqual({ request: [], sent: [], link: [], done: [], gone: [] });
  expect(problems.filter((p) => !/status of 410/.test(p))).toEqual([]);
  await page.context().close();
}, 90_000);
