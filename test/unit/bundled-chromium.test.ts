/**
 * The browser tests need no browser installed by hand (issue 30): without CHROMIUM_PATH and without
 * Debian's chromium (CHROMIUM_SYSTEM_PATHS pointed at a path that does not exist), launchChromium()
 * drives the Chromium shipped inside the pinned npm package @sparticuz/chromium. A browser that cannot
 * be had fails with a message naming each place looked at: never a skip.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundledChromium } from '../support/bundled-chromium';
import { findChromium, launchChromium } from '../support/chromium';

const ROOT = path.resolve(__dirname, '../..');
const PINNED = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['@sparticuz/chromium'];

const saved = { CHROMIUM_PATH: process.env.CHROMIUM_PATH, CHROMIUM_SYSTEM_PATHS: process.env.CHROMIUM_SYSTEM_PATHS };
beforeEach(() => {
  delete process.env.CHROMIUM_PATH;
  process.env.CHROMIUM_SYSTEM_PATHS = '/nonexistent/usr/bin/chromium';
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

test('the package is pinned exactly', () => {
  expect(PINNED).toMatch(/^\d+\.\d+\.\d+$/);
});

test("without Debian's chromium, the browser from @sparticuz/chromium renders a page", async () => {
  expect(findChromium()).toMatchObject({ source: `@sparticuz/chromium ${PINNED}`, executablePath: path.join(ROOT, '.cache/chromium', PINNED!, 'chromium') });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.setContent('<main><h1>Checkout</h1></main><script>document.title = String(1 + 1)</script>');
    expect({ title: await page.title(), heading: await page.textContent('h1'), version: browser.version() }).toEqual({
      title: '2',
      heading: 'Checkout',
      version: expect.stringMatching(/^\d+\./),
    });
    expect((await page.screenshot()).length).toBeGreaterThan(1000);
  } finally {
    await browser.close();
  }
}, 120_000);

test('a browser that cannot be had fails with a message naming where it looked and how to get one', () => {
  const missing = path.join(os.tmpdir(), 'no-such-package');
  expect(() => findChromium({ packageDir: missing })).toThrow(
    `Missing Chromium: no CHROMIUM_PATH, none of /nonexistent/usr/bin/chromium, and @sparticuz/chromium is not installed (no ${missing}/bin/chromium.br). ` +
      "Run `npm install` (it brings @sparticuz/chromium, Linux x64), install Debian's package (apt-get install chromium), or set CHROMIUM_PATH.",
  );
  expect(bundledChromium({ platform: 'darwin-arm64' })).toEqual({ problem: '@sparticuz/chromium ships a browser for linux-x64 only (this is darwin-arm64)' });
  process.env.CHROMIUM_PATH = '/nonexistent/chrome';
  expect(() => findChromium()).toThrow('Missing Chromium: CHROMIUM_PATH=/nonexistent/chrome does not exist.');
});
