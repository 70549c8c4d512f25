/**
 * The defect catalogue's plans without their defects (the other half of
 * test/system/simulation-catalogue-{books,edges}.test.ts): each plan holds every invariant after every step,
 * so the failure the catalogue test sees is its defect's, not its plan's. Each session in a process
 * of its own (test/support/session-in-child.ts).
 */
import { CATALOGUE } from '../support/catalogue-plans';
import { runSessionInChild } from '../support/session-in-child';

jest.setTimeout(120_000);

describe.each(CATALOGUE)('the plan of $defect', ({ defect, plan }) => {
  test('holds every invariant without the defect', async () => {
    const run = await runSessionInChild(plan, { name: `simulation-catalogue-clean: ${defect}` });
    if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
    expect(run.stepsRun).toBe(plan.steps.length);
  });
});
