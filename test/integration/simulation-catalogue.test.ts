/**
 * The defect catalogue is caught (issue 44, "Proof: each catalogue defect caught, a test per defect in
 * npm test"): each defect of src/simulation/defects/catalogue.ts injected into a fresh engine, its
 * short plan (test/support/catalogue-plans.ts) run, and the run stops after the expected step with the
 * invariant that is meant to see it. Each session in a process of its own (test/support/
 * session-in-child.ts). The same plans without their defects hold every invariant:
 * test/system/simulation-catalogue-clean.test.ts.
 */
import { CATALOGUE } from '../support/catalogue-plans';
import { runSessionInChild } from '../support/session-in-child';

jest.setTimeout(120_000);

describe.each(CATALOGUE)('defect $defect', ({ defect, plan, invariant, failsAt }) => {
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
