import type { Page } from 'playwright-core';

/**
 * axe-core's serious and critical violations on the page as it is now: axe is injected as a script
 * of its own, so the page's context must bypass CSP (the pages rightly let no injected script run).
 * Each violation as `<rule> (<impact>): <first nodes' selectors>`.
 */
export async function axeViolations(p: Page): Promise<string[]> {
  await p.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  return p.evaluate(async () => {
    const w = globalThis as any; // the page's window, with axe injected
    const results: { violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> } = await w.axe.run(w.document, { resultTypes: ['violations'] });
    return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}
