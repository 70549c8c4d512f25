import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it), or CHROMIUM_PATH. Nothing is downloaded. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((c): c is string => !!c);
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error(`Missing Chromium: looked at ${candidates.join(', ')}. Install Debian's package (apt-get install chromium) or set CHROMIUM_PATH.`);
  return found;
}

/** Where a browser test saves its screenshots: SCREENSHOTS_DIR when set (created), else a new temporary folder `payments-<name>-…`. */
export function screenshotsDir(name: string): string {
  const dir = process.env.SCREENSHOTS_DIR ? path.resolve(process.env.SCREENSHOTS_DIR) : fs.mkdtempSync(path.join(os.tmpdir(), `payments-${name}-`));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Headless Chromium driven by playwright-core (no browser download). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
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
