import type { DefectName } from '../../src/simulation/defects';
import { CATALOGUE } from './catalogue-plans';
import { runSessionInChild } from './session-in-child';

/**
 * The catalogue test for `defects` (test/system/simulation-catalogue-*.test.ts, two files so that
 * neither passes the suite's 60 s per file on a loaded machine): each defect injected into a fresh
 * engine in a process of its own, its plan (catalogue-plans.ts) run, and the run stops after the
 * expected step with the invariant meant to see it.
 */
export function catalogueCaught(defects: readonly DefectName[]): void {
  const cases = CATALOGUE.filter((c) => defects.includes(c.defect));
  if (cases.length !== defects.length) throw new Error(`no catalogue plan for ${defects.filter((d) => !cases.some((c) => c.defect === d)).join(', ')}`);
  describe.each(cases)('defect $defect', ({ defect, plan, invariant, failsAt }) => {
    test(`is caught after step ${failsAt} by "${invariant.name}"`, async () => {
      const started = performance.now();
      const run = await runSessionInChild(plan, { defect, name: `simulation-catalogue: ${defect}` });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const found = run.failure ? run.failure.violations.map((v) => `${v.invariant}: ${v.lines.join(' | ')}`).join('\n    ') : 'no failure';
      console.log(`simulation-catalogue: ${defect}: ${run.stepsRun} steps in ${seconds} s, ${run.failure ? `failed after step ${run.failure.step.n}` : 'no failure'}\n    ${found}\n${run.trace.map((o) => `  ${o.n} ${o.kind}: ${o.result} ${o.detail}`).join('\n')}`);
      expect(run.failure?.step.n).toBe(failsAt);
      const caught = run.failure!.violations.find((v) => v.invariant === invariant.name);
      expect(caught?.lines.length).toBeGreaterThan(0);
    });
  });
}
