import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { bundledChromium, type BundledOptions, type ChromiumBinary } from './bundled-chromium';

/** Debian's packages; CHROMIUM_SYSTEM_PATHS (colon-separated) replaces the list, e.g. with a path that does not exist to use the bundled browser. */
const SYSTEM_CHROMIUMS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The browser the tests drive, in this order:
 * 1. CHROMIUM_PATH, when set (it must exist);
 * 2. Debian's Chromium (`apt-get install chromium`), when installed;
 * 3. the headless Chromium inside the pinned npm package @sparticuz/chromium (a devDependency, so
 *    `npm install` brings it; Linux x64 only), unpacked once into .cache/chromium/<version>/ by
 *    test/support/bundled-chromium.ts.
 * `bundled` points the third at another package or cache folder (tests). None of them: an error naming each place looked at and how to get one. Never a skip.
 */
export function findChromium(bundled: BundledOptions = {}): ChromiumBinary {
  const explicit = process.env.CHROMIUM_PATH;
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new Error(`Missing Chromium: CHROMIUM_PATH=${explicit} does not exist.`);
    return { executablePath: explicit, env: {}, source: 'CHROMIUM_PATH' };
  }
  const system = process.env.CHROMIUM_SYSTEM_PATHS?.split(':').filter(Boolean) ?? SYSTEM_CHROMIUMS;
  const found = system.find((c) => fs.existsSync(c));
  if (found) return { executablePath: found, env: {}, source: "Debian's chromium" };
  const packaged = bundledChromium(bundled);
  if ('executablePath' in packaged) return packaged;
  throw new Error(
    `Missing Chromium: no CHROMIUM_PATH, none of ${system.join(', ')}, and ${packaged.problem}. ` +
      "Run `npm install` (it brings @sparticuz/chromium, Linux x64), install Debian's package (apt-get install chromium), or set CHROMIUM_PATH.",
  );
}

/** Where a browser test saves its screenshots: SCREENSHOTS_DIR when set (created), else a new temporary folder `payments-<name>-…`. */
export function screenshotsDir(name: string): string {
  const dir = process.env.SCREENSHOTS_DIR ? path.resolve(process.env.SCREENSHOTS_DIR) : fs.mkdtempSync(path.join(os.tmpdir(), `payments-${name}-`));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Headless Chromium (findChromium) driven by playwright-core; nothing is downloaded at run time. */
export function launchChromium(): Promise<Browser> {
  const browser = findChromium();
  return chromium.launch({
    executablePath: browser.executablePath,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
    env: { ...process.env, ...browser.env } as Record<string, string>,
  });
}

/**
 * Collects into `problems` what the page reports as broken: console errors (a policy violation, a
 * failed load) and uncaught page errors, each prefixed with the page's URL at the time.
 */
export function collectPageProblems(page: Page, problems: string[]): void {
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: ${String(e)}`));
}
