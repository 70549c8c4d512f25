/**
 * The merchant portal in headless Chromium (Debian's package, driven by playwright-core): sign in,
 * create a sandbox key (its secret shown once), revoke it, switch to live (the TEST MODE band goes)
 * and back, sign out. No Content-Security-Policy violation on the way (no inline script or style),
 * and axe-core finds no serious or critical violation on any portal page.
 * Screenshots go to SCREENSHOTS_DIR when set, else to a temporary folder.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { collectPageProblems, launchChromium, screenshotsDir } from '../support/chromium';
import { startHarness, type Harness } from '../support/harness';
import { axeViolations } from '../support/axe';
import { newPortalUser, startPortalWeb, type PortalWeb } from '../support/portal-web';

const SHOTS = screenshotsDir('portal');

let h: Harness;
let web: PortalWeb;
let url: string;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  h = await startHarness({ worker: false });
  web = await startPortalWeb(h);
  url = web.url;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await h?.close();
});

async function user(): Promise<{ email: string; password: string; merchantId: string }> {
  const m = await h.merchant();
  return { ...(await newPortalUser(h.orm, m.id)), merchantId: m.id };
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  collectPageProblems(page, problems);
  return page;
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, name), fullPage: true });

test('sign in, create a sandbox key (shown once), revoke it, switch to live and back, sign out', async () => {
  const { email, password } = await user();
  const page = await newPage();
  await page.goto(`${url}/`);
  await page.getByRole('heading', { name: 'Sign in to the merchant portal' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/sign-in');
  await shot(page, 'portal-sign-in.png');
  await signIn(page, email, password);
  await page.getByRole('heading', { name: 'Payments (sandbox)' }).waitFor();
  await page.getByRole('link', { name: 'Developers → API keys' }).click();

  await page.getByRole('heading', { name: 'Developers → API keys (sandbox)' }).waitFor();
  await expect(page.getByRole('status').filter({ hasText: 'TEST MODE' }).isVisible()).resolves.toBe(true);
  // The stylesheet applied (from 'self'): the TEST MODE band has its colour.
  expect(await page.locator('#test-mode').evaluate((e) => (globalThis as unknown as { getComputedStyle(el: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor)).toBe('rgb(138, 75, 0)');
  await shot(page, 'portal-api-keys-sandbox.png');

  await page.getByLabel('charges:read').check();
  await page.getByLabel('balances:read').check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('heading', { name: 'Your new API key' }).waitFor();
  const secret = (await page.locator('#secret').innerText()).trim();
  expect(secret).toMatch(/^svc_test_/);
  await shot(page, 'portal-new-key.png');
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: secret })).status).toBe(200);

  await page.getByRole('link', { name: 'Done: back to API keys' }).click();
  await page.getByRole('heading', { name: 'Developers → API keys (sandbox)' }).waitFor();
  expect(await page.content()).not.toContain(secret);
  await page.getByRole('button', { name: `Revoke svc_test_…${secret.slice(-4)}` }).click();
  await page.getByText('The key is revoked').waitFor();
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: secret })).status).toBe(401);

  await page.getByRole('button', { name: 'Switch to live' }).click();
  await page.getByRole('heading', { name: 'Developers → API keys (live)' }).waitFor();
  expect(await page.locator('#test-mode').count()).toBe(0);
  await expect(page.locator('#environment').innerText()).resolves.toBe('Live');
  await shot(page, 'portal-api-keys-live.png');
  await page.getByRole('button', { name: 'Switch to sandbox' }).click();
  await page.getByRole('heading', { name: 'Developers → API keys (sandbox)' }).waitFor();
  expect(await page.locator('#test-mode').count()).toBe(1);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the merchant portal' }).waitFor();
  await page.goto(`${url}/developers/api-keys`);
  expect(new URL(page.url()).pathname).toBe('/sign-in');
  expect(problems).toEqual([]);
  await page.context().close();
}, 90_000);


test('axe-core: no serious or critical violation on any portal page (sign-in, its error, keys sandbox and live, the new key, an error, users)', async () => {
  const { email, password, merchantId } = await user();
  const p = await newPage();
  const found: Record<string, string[]> = {};
  await p.goto(`${url}/sign-in`);
  found.signIn = await axeViolations(p);
  await signIn(p, email, 'wrong-password');
  await p.getByRole('alert').waitFor();
  found.signInError = await axeViolations(p);
  await signIn(p, email, password);
  await p.getByRole('link', { name: 'Developers → API keys' }).click();
  await p.getByRole('heading', { name: 'Developers → API keys (sandbox)' }).waitFor();
  found.keysSandbox = await axeViolations(p);
  await p.getByRole('button', { name: 'Create key' }).click();
  await p.getByText('Choose at least one scope.').waitFor();
  found.keysError = await axeViolations(p);
  await p.getByLabel('events:read').check();
  await p.getByRole('button', { name: 'Create key' }).click();
  await p.getByRole('heading', { name: 'Your new API key' }).waitFor();
  found.newKey = await axeViolations(p);
  await p.getByRole('button', { name: 'Switch to live' }).click();
  await p.getByRole('heading', { name: 'Developers → API keys (live)' }).waitFor();
  found.keysLive = await axeViolations(p);
  // Users (issue 30): a colleague's row with its Disable and End sessions buttons, then the notice after disabling it.
  const colleague = await newPortalUser(h.orm, merchantId);
  await p.getByRole('link', { name: 'Users' }).click();
  await p.getByRole('heading', { name: 'Users' }).waitFor();
  found.users = await axeViolations(p);
  await p.getByRole('button', { name: `Disable ${colleague.email}` }).click();
  await p.getByText('The user is disabled').waitFor();
  found.usersNotice = await axeViolations(p);
  await p.context().close();
  expect(found).toEqual({ signIn: [], signInError: [], keysSandbox: [], keysError: [], newKey: [], keysLive: [], users: [], usersNotice: [] });
}, 90_000);
