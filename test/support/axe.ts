import fs from 'node:fs';
import type { Page } from 'playwright-core';

/** axe-core's own bundle, read once. */
let axeSource: string | undefined;

/**
 * axe-core's serious and critical violations on the page as it is now. axe is evaluated through the
 * DevTools protocol (as the test's own code, which the page's Content-Security-Policy does not
 * govern), so pages are checked as served, without bypassing their CSP: a page that the policy
 * breaks shows it. Each violation as `<rule> (<impact>): <first nodes' selectors>`.
 */
export async function axeViolations(p: Page): Promise<string[]> {
  axeSource ??= fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await p.evaluate(axeSource);
  return p.evaluate(async () => {
    const w = globalThis as any; // the page's window, with axe defined
    const results: { violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> } = await w.axe.run(w.document, { resultTypes: ['violations'] });
    return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}
