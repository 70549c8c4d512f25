/**
 * The web surfaces end to end in headless Chromium (issue 21 "Proof"; Debian's chromium driven by
 * playwright-core), as a merchant walks them on the web port that `npm start` wires (the web port,
 * the sandbox listener that allows its origin, the live listener that allows none):
 *   1. sign in to the portal;
 *   2. create a key (its secret shown once);
 *   3. register a webhook endpoint (its signing secret shown once);
 *   4. create a card charge with that key, and pay it through hosted checkout with the challenge;
 *   5. see the charge in Payments (its timeline, its workflow link) and its delivery in Webhooks
 *      (attempts, request and response), and replay it: the receiver gets the same event again;
 *   6. use the reference site's console against the sandbox with the key.
 * On the way: Events, Balances and Settings show the charge's effects; axe-core finds no serious or
 * critical violation on any page; nothing breaks the Content-Security-Policy. Screenshots of each
 * page go to SCREENSHOTS_DIR (`npm run screenshots:portal` writes docs/screenshots/), else to a
 * temporary folder.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from '../support/axe';
import { collectPageProblems, launchChromium, screenshotsDir } from '../support/chromium';
import { startDocsSite, type DocsSite } from '../support/docs-site';
import { chargeBody, idempotencyKey, startHarness, type Harness } from '../support/harness';
import { newPortalUser } from '../support/portal-web';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';

const SHOTS = screenshotsDir('walk');
const TEMPORAL_UI = { baseUrl: 'http://127.0.0.1:8233', namespace: 'default' };

let h: Harness;
let site: DocsSite;
let receiver: TestReceiver;
let browser: Browser;
const problems: string[] = [];
const violations: Record<string, string[]> = {};

beforeAll(async () => {
  h = await startHarness();
  site = await startDocsSite(h.deps, { temporalUi: TEMPORAL_UI });
  // Checkout links in API answers point at this web port.
  h.deps.webUrl = site.webUrl;
  receiver = await startTestReceiver();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await site?.close();
  await h?.close();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  collectPageProblems(page, problems);
  return page;
}

/** axe-core on the page as it is now (kept under `name`), and a full-page screenshot `<shot>.png`. */
async function look(page: Page, name: string, shot: string): Promise<void> {
  violations[name] = await axeViolations(page);
  await page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true });
}

const sandboxApi = (method: string, route: string, key: string, body?: unknown) =>
  fetch(site.urls.sandbox + route, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json', 'idempotency-key': idempotencyKey() } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

test('sign in → create a key → register an endpoint → a card charge through checkout with the challenge → its delivery, replayed → the console on the sandbox', async () => {
  const m = await h.merchant();
  const { email, password } = await newPortalUser(h.orm, m.id);
  const page = await newPage();

  // 1. Sign in: the portal opens on Payments, in the sandbox, with the TEST MODE band.
  await page.goto(`${site.webUrl}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${site.webUrl}/payments`);
  await expect(page.locator('#test-mode').isVisible()).resolves.toBe(true);
  await look(page, 'payments (empty)', 'portal-payments-empty');

  // 2. Create a key with the scopes the walk needs; its secret is shown once.
  await page.getByRole('link', { name: 'Developers → API keys' }).click();
  for (const scope of ['charges:read', 'charges:write', 'balances:read', 'events:read']) await page.getByLabel(scope).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.locator('#secret').innerText()).trim();
  expect(key).toMatch(/^svc_test_/);

  // 3. Register the endpoint; its signing secret is shown once.
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await look(page, 'webhooks (none)', 'portal-webhooks-empty');
  await page.locator('#endpoint-url').fill(`${receiver.url}/walk`);
  await page.locator('#create-endpoint').click();
  const signingSecret = (await page.locator('#secret').innerText()).trim();
  expect(signingSecret).toMatch(/^whsec_/);
  receiver.setSecrets([signingSecret]);
  await look(page, 'new endpoint secret', 'portal-webhook-secret');
  await page.locator('#endpoint-link').click();
  const endpointPath = new URL(page.url()).pathname;
  expect(endpointPath).toMatch(/^\/webhooks\/we_/);

  // 4. A card charge with the new key: 3ds_redirect to the checkout page, approved through the challenge.
  const created = await sandboxApi('POST', '/v1/charges', key, chargeBody({ channel: 'card', momo_network_id: undefined, currency: 'USD', amount: 4200, customer: { identifier: '4242424242424242', name: 'Ama' } }));
  expect(created.status).toBe(200);
  const charge = (await created.json()) as { id: string; status: string; action: { type: string; url: string } };
  expect({ status: charge.status, type: charge.action.type }).toEqual({ status: 'awaiting_action', type: '3ds_redirect' });
  expect(charge.action.url.startsWith(`${site.webUrl}/checkout/`)).toBe(true);
  const checkout = await newPage();
  await checkout.goto(charge.action.url);
  await checkout.getByRole('button', { name: 'Approve payment' }).click();
  await checkout.getByLabel('One-time code').fill('123456');
  await checkout.getByRole('button', { name: 'Verify and pay' }).click();
  await checkout.getByRole('heading', { name: 'Payment approved' }).waitFor();
  await checkout.context().close();
  expect((await h.settled(charge.id)).status).toBe('succeeded');
  const [delivered] = (await receiver.waitFor((ds) => ds.some((d) => JSON.parse(d.body).type === 'transaction.succeeded'), 20_000)).filter((d) => JSON.parse(d.body).type === 'transaction.succeeded');
  expect(delivered!.validFor).toEqual([signingSecret]);
  const eventId = JSON.parse(delivered!.body).id as string;

  // 5a. Payments: the charge, its timeline from its events, and its workflow in the Temporal UI.
  await page.getByRole('link', { name: 'Payments' }).click();
  await page.locator(`#payments a[href="/payments/${charge.id}"]`).waitFor();
  await look(page, 'payments', 'portal-payments');
  await page.locator(`#payments a[href="/payments/${charge.id}"]`).click();
  await expect(page.locator('#timeline').innerText()).resolves.toContain('transaction.succeeded');
  await expect(page.locator('#temporal-link').getAttribute('href')).resolves.toBe(`${TEMPORAL_UI.baseUrl}/namespaces/default/workflows/${charge.id}`);
  await look(page, 'payment detail', 'portal-payment-detail');

  // 5b. Webhooks: the delivery with its attempt (request and response), then replayed.
  await page.goto(site.webUrl + endpointPath);
  const deliveryLink = page.locator('#deliveries a[href^="/webhooks/deliveries/"]', { hasText: 'transaction.succeeded' });
  await deliveryLink.first().waitFor();
  await look(page, 'webhook endpoint', 'portal-webhook-endpoint');
  await deliveryLink.first().click();
  const attempts = await page.locator('#attempts').innerText();
  expect(attempts).toContain('200');
  expect(attempts).toContain(eventId);
  await look(page, 'delivery', 'portal-webhook-delivery');
  const before = receiver.deliveries.length;
  await page.locator('#replay').click();
  await page.locator('#message').waitFor();
  const replayed = await receiver.waitFor((ds) => ds.slice(before).some((d) => JSON.parse(d.body).id === eventId), 20_000);
  const again = replayed.slice(before).find((d) => JSON.parse(d.body).id === eventId)!;
  expect(again.headers['x-service-delivery-id']).not.toBe(delivered!.headers['x-service-delivery-id']);
  expect(again.validFor).toEqual([signingSecret]);
  await look(page, 'replayed delivery', 'portal-webhook-replayed');

  // Events, Balances and Settings show the charge's effects.
  await page.getByRole('link', { name: 'Events' }).click();
  await expect(page.locator('#events').innerText()).resolves.toContain('transaction.succeeded');
  await look(page, 'events', 'portal-events');
  await page.getByRole('link', { name: 'Balances' }).click();
  await page.locator('#balance-chart').waitFor();
  await expect(page.locator('#balance-transactions').innerText()).resolves.toContain(charge.id);
  await look(page, 'balances', 'portal-balances');
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.locator('main').innerText()).resolves.toContain(m.id);
  await look(page, 'settings', 'portal-settings');
  await page.getByRole('button', { name: 'Switch to live' }).click();
  await expect(page.locator('#test-mode').count()).resolves.toBe(0);
  await look(page, 'settings (live)', 'portal-settings-live');
  await page.getByRole('button', { name: 'Switch to sandbox' }).click();

  // 6. The console sends to the sandbox with the key: the charge, succeeded.
  const consolePage = await newPage();
  // Through the portal's old link: the web port redirects to the reference site's own origin (issue 47).
  await consolePage.goto(`${site.webUrl}/docs/console`);
  expect(consolePage.url()).toBe(`${site.docsUrl}/docs/console`);
  await consolePage.getByLabel('API key (sandbox)').fill(key);
  await consolePage.getByLabel('Method').selectOption('GET');
  await consolePage.getByLabel('Path').fill(`/v1/charges/${charge.id}`);
  await consolePage.getByRole('button', { name: 'Send to the sandbox' }).click();
  await consolePage.locator('#console-status', { hasText: /^200 OK · Request-Id req_/ }).waitFor();
  await expect(consolePage.locator('#console-answer').textContent()).resolves.toMatch(new RegExp(`"id": "${charge.id}"[\\s\\S]*"status": "succeeded"`));
  await consolePage.context().close();

  // The portal's actions are in the audit log as the portal user.
  const audited = await h.orm.em.getConnection().execute<{ action: string }[]>(`select action from operator_audit where merchant_id = ? and operator = ? order by created_at`, [m.id, `portal:${email}`]);
  expect(audited.map((r) => r.action)).toEqual(['portal.sign_in', 'api_key.create', 'webhook_endpoint.create', 'webhook_delivery.replay', 'portal.switch_environment', 'portal.switch_environment']);

  await page.context().close();
  expect(problems).toEqual([]);
  expect(Object.entries(violations).filter(([, v]) => v.length > 0)).toEqual([]);
}, 180_000);
