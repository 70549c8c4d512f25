/**
 * The reference site in headless Chromium (issue 21; Debian's package driven by playwright-core):
 * - the reference renders the operations of the OpenAPI document (Redoc), with nothing blocked by
 *   the page's policy and no request to any other origin;
 * - the request console refuses a live key with no request leaving the page, sends a sandbox request
 *   with a test key and shows the answer, and the key is then nowhere but in the page's memory: no
 *   cookie, no storage, not in the URL, never seen by the web port or any log;
 * - axe-core on every page: no serious or critical violation.
 * Screenshots go to SCREENSHOTS_DIR (`npm run screenshots:docs` writes docs/screenshots/), else to a
 * temporary folder.
 */
import path from 'node:path';
import pino from 'pino';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { DOCS_PAGES } from '../../src/web/docs/layout';
import { launchChromium, screenshotsDir } from '../support/chromium';
import { startDocsSite, type DocsSite } from '../support/docs-site';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';
import { axeViolations } from '../support/axe';

const SHOTS = screenshotsDir('docs');

let h: Harness;
let site: DocsSite;
let m: TestMerchant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every log line of the web port and both listeners (access logs included). */
const logLines: string[] = [];
/** Every request the page made, and every message the browser logged (policy violations show there). */
const requests: Request[] = [];
const consoleMessages: string[] = [];

beforeAll(async () => {
  h = await startHarness({ worker: false });
  const log = pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) });
  site = await startDocsSite({ ...h.deps, log });
  m = await h.merchant();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('request', (r) => void requests.push(r));
  page.on('console', (msg) => void consoleMessages.push(msg.text()));
  page.on('pageerror', (error) => void consoleMessages.push(`pageerror: ${error.message}`));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await h?.close();
});

const shot = (name: string, fullPage = false) => page.screenshot({ path: path.join(SHOTS, name), fullPage });

test('the reference renders every operation of the OpenAPI document, loading nothing but from this server', async () => {
  const spec = (await (await fetch(`${site.urls.sandbox}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
  const operations = Object.values(spec.paths).flatMap((item) => Object.values(item));
  expect(operations.length).toBeGreaterThan(20);

  await page.goto(`${site.docsUrl}/docs`);
  await page.locator('#redoc [data-section-id^="tag/"]').first().waitFor({ timeout: 60_000 });
  for (const op of operations) {
    await expect(page.locator(`[data-section-id$="/operation/${op.operationId}"]`).count()).resolves.toBeGreaterThan(0);
  }
  await expect(page.getByRole('heading', { name: 'Create a charge' }).count()).resolves.toBeGreaterThan(0);
  await shot('docs-reference.png');
  // Redoc's sidebar footer always shows Redocly's logo from their CDN: the page's policy blocks it
  // before any request is made (the footer hides the image on error). Nothing else is refused.
  expect(consoleMessages.filter((t) => /Content Security Policy|pageerror/i.test(t))).toEqual([
    expect.stringMatching(/^Loading the image 'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg' violates .*img-src 'self' data:.* The action has been blocked\.$/),
  ]);
  const elsewhere = requests.filter((r) => new URL(r.url()).origin !== site.docsUrl);
  expect(elsewhere.map((r) => ({ url: r.url(), failure: r.failure()?.errorText }))).toEqual([{ url: 'https://cdn.redoc.ly/redoc/logo-mini.svg', failure: 'csp' }]);
  expect(requests.some((r) => r.url() === `${site.docsUrl}/docs/openapi.json`)).toBe(true);
}, 120_000);

test('the console refuses a svc_live_ key before sending: no request leaves the page', async () => {
  await page.goto(`${site.docsUrl}/docs/console`);
  const before = requests.length;
  await page.getByLabel('API key (sandbox)').fill(m.liveKey);
  await page.getByLabel('Path').fill('/v1/balances');
  await page.getByRole('button', { name: 'Send to the sandbox' }).click();
  await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Refused: this is a live key/);
  await page.waitForTimeout(500);
  expect(requests.slice(before).map((r) => r.url())).toEqual([]);
  await expect(page.locator('#console-status').textContent()).resolves.toBe('Nothing sent yet.');
  await shot('docs-console-live-key-refused.png', true);
}, 60_000);

test('the console sends to the sandbox with a test key and shows the answer; the key is then in page memory alone', async () => {
  await page.goto(`${site.docsUrl}/docs/console`);
  const before = requests.length;
  await page.getByLabel('API key (sandbox)').fill(m.testKey);
  await page.getByLabel('Method').selectOption('GET');
  await page.getByLabel('Path').fill('/v1/balances');
  await page.getByRole('button', { name: 'Send to the sandbox' }).click();
  await page.locator('#console-status', { hasText: /^200 OK · Request-Id req_/ }).waitFor();
  await expect(page.locator('#console-answer').textContent()).resolves.toMatch(/^\{\n  "object": "balance",\n  "livemode": false,/);
  await shot('docs-console-answer.png', true);

  // A POST: the preflight with Authorization, Content-Type and Idempotency-Key is allowed; the API's
  // own 400 is shown.
  await page.getByLabel('Method').selectOption('POST');
  await page.getByLabel('Path').fill('/v1/charges');
  await page.getByLabel('Body (JSON, for POST and PATCH)').fill('{"amount": 0}');
  await page.getByRole('button', { name: 'Send to the sandbox' }).click();
  await page.locator('#console-status', { hasText: /^400 Bad Request · Request-Id req_/ }).waitFor();
  await expect(page.locator('#console-answer').textContent()).resolves.toContain('"invalid_request"');

  // An example request: a charge created through the console (a fresh Idempotency-Key each time).
  await page.getByLabel('Example request').selectOption({ label: 'POST /v1/charges: Create a mobile-money charge' });
  await expect(page.getByLabel('Method').inputValue()).resolves.toBe('POST');
  await page.getByRole('button', { name: 'Send to the sandbox' }).click();
  await page.locator('#console-status', { hasText: /^200 OK · Request-Id req_/ }).waitFor();
  await expect(page.locator('#console-answer').textContent()).resolves.toMatch(/"id": "txn_\w+"[\s\S]*"status": "awaiting_action"/);
  const creates = requests.slice(before).filter((r) => r.method() === 'POST' && r.url() === `${site.urls.sandbox}/v1/charges`);
  expect(creates.map((r) => r.headers()['idempotency-key'])).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^[0-9a-f-]{36}$/)]);

  // Every request after the page loaded went to the sandbox API, none to the web port.
  const sent = requests.slice(before).filter((r) => !r.url().startsWith(`${site.docsUrl}/docs`) || r.resourceType() === 'fetch');
  expect(sent.map((r) => new URL(r.url()).origin)).toEqual(expect.arrayContaining([site.urls.sandbox]));
  expect(sent.filter((r) => r.resourceType() === 'fetch').every((r) => r.url().startsWith(`${site.urls.sandbox}/v1/`))).toBe(true);

  // In page memory alone.
  expect(await context.cookies()).toEqual([]);
  const stored = await page.evaluate(async () => {
    const w = globalThis as any; // the page's window
    return { local: w.localStorage.length, session: w.sessionStorage.length, indexedDb: (await w.indexedDB.databases()).length, cookie: w.document.cookie, caches: (await w.caches.keys()).length };
  });
  expect(stored).toEqual({ local: 0, session: 0, indexedDb: 0, cookie: '', caches: 0 });
  expect(page.url()).toBe(`${site.docsUrl}/docs/console`);
  for (const seen of site.docsRequests) expect(JSON.stringify(seen)).not.toContain(m.testKey);
  expect(site.docsRequests.some((r) => r.url === '/docs/console')).toBe(true);
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.some((line) => line.includes('"path":"/v1/balances"'))).toBe(true);
  for (const line of logLines) expect(line).not.toContain(m.testKey);
  for (const line of logLines) expect(line).not.toContain(m.liveKey);
  for (const seen of site.docsRequests) expect(JSON.stringify(seen)).not.toContain(m.liveKey);
  // And a reload forgets it.
  await page.reload();
  await expect(page.getByLabel('API key (sandbox)').inputValue()).resolves.toBe('');
}, 60_000);

test('axe-core: no serious or critical violation on any page', async () => {
  // axe runs through the DevTools protocol (test/support/axe.ts): the pages keep their policy.
  const axeContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const axePage = await axeContext.newPage();
  const found: Record<string, string[]> = {};
  for (const { path: p } of DOCS_PAGES) {
    await axePage.goto(site.docsUrl + p);
    if (p === '/docs') await axePage.locator('#redoc [data-section-id^="tag/"]').first().waitFor({ timeout: 60_000 });
    found[p] = await axeViolations(axePage);
    if (p !== '/docs') await axePage.screenshot({ path: path.join(SHOTS, `docs${p.replace(/^\/docs/, '').replace(/\//g, '-') || '-reference'}.png`) });
  }
  await axeContext.close();
  expect(found).toEqual(Object.fromEntries(DOCS_PAGES.map(({ path: p }) => [p, []])));
}, 180_000);
