/**
 * Issue 45, live cards, in headless Chromium (Debian's package, driven by playwright-core): a live
 * card charge created through the API, its `action.url` opened as the customer's browser would; the
 * customer types the card into the hosted page, follows the aggregator's 3-D Secure link to the fake
 * aggregator's page, authenticates, comes back, and the page shows the approval once the aggregator
 * said so. A one-time-code challenge the same way. No Content-Security-Policy violation or console
 * error on the way, and axe-core finds no serious or critical violation on our pages.
 * Screenshots go to SCREENSHOTS_DIR when set, else to a temporary folder.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { collectPageProblems, launchChromium, screenshotsDir } from '../support/chromium';
import { startCheckoutWeb, type CheckoutWeb } from '../support/checkout-web';
import { chargeBody, idempotencyKey, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { axeViolations } from '../support/axe';
import { cardEnding, FUTURE_EXPIRY } from '../support/test-cards';

const SHOTS = screenshotsDir('checkout');

let p: PartnerHarness;
let web: CheckoutWeb;
let merchant: TestMerchant;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  p = await startPartnerHarness({ aggregator: { fake: { approveAfterMs: 300 }, routes: 'mobile_money:*=momo,bank:*=aggregator,card:*=aggregator' } });
  web = await startCheckoutWeb(p.h);
  merchant = await p.h.merchant({ verified: true });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  collectPageProblems(page, problems);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await p?.close();
});

async function liveCardCharge(amount: number): Promise<{ id: string; url: string }> {
  const created = await p.h.request('live', 'POST', '/v1/charges', {
    key: merchant.liveKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: chargeBody({ channel: 'card', momo_network_id: undefined, amount, customer: { identifier: 'kofi@example.com', name: 'Kofi' } }),
  });
  expect(created.json).toMatchObject({ status: 'awaiting_action', rail: 'aggregator', action: { type: '3ds_redirect' } });
  return { id: created.json.id, url: created.json.action.url };
}

async function typeCard(number: string): Promise<void> {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM/YY)').fill(FUTURE_EXPIRY);
  await page.getByLabel('Security code').fill('731');
}

test('a live card through the hosted page: the card, the aggregator\'s 3-D Secure page, back, approved', async () => {
  const { id, url } = await liveCardCharge(15_500);
  await page.goto(url);
  await page.getByRole('heading', { name: 'Card payment' }).waitFor();
  expect(await page.locator('.test-mode').count()).toBe(0);
  expect(await axeViolations(page)).toEqual([]);
  await typeCard(cardEnding('0021'));
  await page.screenshot({ path: path.join(SHOTS, 'checkout-live-card.png'), fullPage: true });
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.getByRole('link', { name: 'Continue to your card issuer' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('link', { name: 'Continue to your card issuer' }).click();
  // The fake aggregator's 3-D Secure page (not ours): authenticate.
  await page.locator('#authenticate').click();
  // Back on our page: it refreshes itself until the aggregator's word, then shows it.
  await page.getByRole('heading', { name: 'Payment approved' }).waitFor({ timeout: 30_000 });
  expect(await page.locator('#result').innerText()).toContain('ending 0021');
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: path.join(SHOTS, 'checkout-live-card-approved.png'), fullPage: true });
  expect(await p.h.settled(id)).toMatchObject({ status: 'succeeded' });
  expect(problems).toEqual([]);
}, 90_000);

test('a live card with a one-time-code challenge: the code form, the code, approved; a mistyped card first is refused by the page', async () => {
  const { id, url } = await liveCardCharge(8_000);
  await page.goto(url);
  await typeCard('4000000000000001');
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.locator('#problem').waitFor();
  expect(await page.getByLabel('Card number').inputValue()).toBe('');
  await typeCard(cardEnding('0020'));
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.getByLabel('One-time code').waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: path.join(SHOTS, 'checkout-live-card-otp.png'), fullPage: true });
  await page.getByLabel('One-time code').fill('123456');
  await page.getByRole('button', { name: 'Verify and pay' }).click();
  await page.getByRole('heading', { name: 'Payment approved' }).waitFor({ timeout: 30_000 });
  expect(await p.h.settled(id)).toMatchObject({ status: 'succeeded' });
  // The one problem the browser saw: the refused card's 400, which the page answered with the form.
  expect(problems).toEqual([expect.stringMatching(/\/checkout\/.*status of 400/)]);
}, 90_000);
