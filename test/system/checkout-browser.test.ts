/**
 * Hosted checkout in headless Chromium (Debian's package, driven by playwright-core): a card charge
 * created through the API, its `action.url` opened as the customer's browser would; the page shows
 * the amount and the merchant, the customer approves, passes the 3-D Secure-style challenge, and the
 * charge succeeds. No Content-Security-Policy violation on the way (no inline script or style), and
 * axe-core finds no serious or critical violation on any checkout page.
 * Screenshots go to SCREENSHOTS_DIR when set, else to a temporary folder.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { collectPageProblems, launchChromium, screenshotsDir } from '../support/chromium';
import { startCheckoutWeb, type CheckoutWeb } from '../support/checkout-web';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';
import { axeViolations } from '../support/axe';

const SHOTS = screenshotsDir('checkout');

let h: Harness;
let web: CheckoutWeb;
let merchant: TestMerchant;
let merchantName: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
  web = await startCheckoutWeb(h);
  merchant = await h.merchant();
  merchantName = (await h.orm.em.getConnection().execute<Array<{ name: string }>>(`select name from merchants where id = ?`, [merchant.id]))[0].name;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  collectPageProblems(page, problems);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await h?.close();
});

/** What an accessible page needs at least: a language, one h1, every input labelled, every button named. */
async function basicAccessibility(): Promise<void> {
  expect(await page.getAttribute('html', 'lang')).toBe('en');
  expect(await page.locator('h1').count()).toBe(1);
  for (const input of await page.locator('input').all()) {
    const id = await input.getAttribute('id');
    expect(await page.locator(`label[for="${id}"]`).count()).toBe(1);
  }
  for (const button of await page.locator('button').all()) expect((await button.innerText()).trim()).not.toBe('');
}

test('a card charge through hosted checkout: amount and merchant, approve, the challenge, succeeded', async () => {
  const created = await h.request('sandbox', 'POST', '/v1/charges', {
    key: merchant.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: chargeBody({ channel: 'card', momo_network_id: undefined, currency: 'USD', amount: 12345, customer: { identifier: '4242424242424242', name: 'Kofi' } }),
  });
  expect(created.json).toMatchObject({ status: 'awaiting_action', action: { type: '3ds_redirect' } });

  await page.goto(created.json.action.url);
  await expect(page.locator('#merchant').innerText()).resolves.toBe(merchantName);
  await expect(page.locator('#amount').innerText()).resolves.toBe('USD 123.45');
  await expect(page.locator('.test-mode').innerText()).resolves.toContain('TEST MODE');
  // The stylesheet applied (from 'self'): the TEST MODE band has its colour.
  expect(await page.locator('.test-mode').evaluate((e) => (globalThis as unknown as { getComputedStyle(el: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor)).toBe('rgb(138, 75, 0)');
  await basicAccessibility();
  await page.screenshot({ path: path.join(SHOTS, 'checkout-card.png'), fullPage: true });

  await page.getByRole('button', { name: 'Approve payment' }).click();
  await page.getByRole('heading', { name: 'Verify it’s you' }).waitFor();
  await basicAccessibility();
  await page.getByLabel('One-time code').fill('123456');
  await page.screenshot({ path: path.join(SHOTS, 'checkout-card-challenge.png'), fullPage: true });
  await page.getByRole('button', { name: 'Verify and pay' }).click();
  await page.getByRole('heading', { name: 'Payment approved' }).waitFor();
  await page.screenshot({ path: path.join(SHOTS, 'checkout-card-approved.png'), fullPage: true });

  expect(await h.settled(created.json.id)).toMatchObject({ status: 'succeeded' });
  const fetched = await h.request('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key: merchant.testKey });
  expect(fetched.json.status).toBe('succeeded');

  expect(problems).toEqual([]);
  // Opened again, the used link says so (the browser logs the 410 itself), and changes nothing.
  const again = await page.goto(created.json.action.url);
  expect(again?.status()).toBe(410);
  await page.getByRole('heading', { name: 'Checkout link already used' }).waitFor();
  expect((await h.request('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key: merchant.testKey })).text).toBe(fetched.text);
}, 60_000);


test('axe-core: no serious or critical violation on any checkout page (page, challenge, approved, used, unknown)', async () => {
  const created = await h.request('sandbox', 'POST', '/v1/charges', {
    key: merchant.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: chargeBody({ channel: 'card', momo_network_id: undefined, currency: 'USD', amount: 5000, customer: { identifier: '4242424242424242', name: 'Kofi' } }),
  });
  const url: string = created.json.action.url;
  const context = await browser.newContext();
  const p = await context.newPage();
  const found: Record<string, string[]> = {};
  await p.goto(url);
  found.page = await axeViolations(p);
  await p.getByRole('button', { name: 'Approve payment' }).click();
  await p.getByLabel('One-time code').waitFor();
  found.challenge = await axeViolations(p);
  await p.getByLabel('One-time code').fill('123456');
  await p.getByRole('button', { name: 'Verify and pay' }).click();
  await p.getByRole('heading', { name: 'Payment approved' }).waitFor();
  found.approved = await axeViolations(p);
  await p.goto(url);
  found.used = await axeViolations(p);
  await p.goto(`${web.url}/checkout/${'A'.repeat(43)}`);
  found.unknown = await axeViolations(p);
  await context.close();
  expect(found).toEqual({ page: [], challenge: [], approved: [], used: [], unknown: [] });
  expect((await h.settled(created.json.id)).status).toBe('succeeded');
}, 60_000);
