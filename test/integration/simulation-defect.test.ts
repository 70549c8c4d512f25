/**
 * The simulator finds an injected defect (issue 33, "Proof"): with "a transition skips its posting"
 * on (src/simulation/defects.ts: a charge's capture transfer removed, with its effect on the balance
 * rows, right after the success commits), a plan with sandbox charges fails right after its first charge
 * succeeds, with the balances invariant; the shrinker cuts it to a few steps that still fail with that
 * invariant; the reproduction file is written (here to a temporary folder) and names it. Without the
 * defect the shrunk plan passes: the failure is the defect's, not the plan's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { balancesMatch } from '../../src/simulation/invariants';
import { plan } from '../../src/simulation/plan';
import { writeReproFile } from '../../src/simulation/repro-file';
import { runSession, shrinkSession } from '../../src/simulation/session';
import type { Plan } from '../../src/simulation/types';

jest.setTimeout(900_000);

/** The first seed whose first succeeding sandbox charge comes after a few other steps and no live charge, and succeeds within 3 steps (pure: plan()). */
function pickPlan(): { plan: Plan; chargeStep: number } {
  for (let seed = 1; seed < 10_000; seed++) {
    const p = plan(seed, 20);
    const at = p.steps.findIndex((s) => s.kind === 'sandbox_charge' && s.params.outcome === 'succeed');
    // Mobile money awaits the customer's approval until time passes: a time jump must follow soon.
    const succeedsSoon = at >= 0 && (p.steps[at]!.params.channel !== 'mobile_money' || p.steps.slice(at + 1, at + 4).some((s) => s.kind === 'time_jump'));
    if (at >= 4 && at <= 8 && succeedsSoon && !p.steps.slice(0, at).some((s) => s.kind === 'live_charge')) return { plan: { seed, steps: p.steps.slice(0, at + 3) }, chargeStep: p.steps[at]!.n };
  }
  throw new Error('no seed below 10000 has a succeeding sandbox charge within its first steps: has plan() changed?');
}

test('the defect "a transition skips its posting" is found when the first charge succeeds, shrunk to at most 5 steps, and written as a reproduction', async () => {
  const { plan: original, chargeStep } = pickPlan();
  const started = performance.now();
  const run = await runSession(original, { defect: 'skip-charge-posting' });
  console.log(`simulation-defect: seed ${original.seed}, ${original.steps.length} steps: ${run.failure ? `failed after step ${run.failure.step.n}` : 'no failure'} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  expect(run.failure).not.toBeNull();
  const failure = run.failure!;
  // At the step after which that charge succeeded: its own (card, bank) or a later one (mobile money
  // awaits the customer's approval until time passes); nothing failed before it.
  expect(failure.step.n).toBeGreaterThanOrEqual(chargeStep);
  const succeeded = await runSession({ seed: original.seed, steps: original.steps.filter((s) => s.n < failure.step.n) }, { defect: 'skip-charge-posting' });
  expect(succeeded.failure).toBeNull();
  const balances = failure.violations.find((v) => v.invariant === balancesMatch.name);
  expect(balances).toBeDefined();
  expect(balances!.lines.length).toBeGreaterThan(0);

  const trials: number[] = [];
  const shrunk = await shrinkSession(original, failure, balancesMatch.name, { defect: 'skip-charge-posting', maxTrials: 40, onTrial: (t) => trials.push(t.size) });
  console.log(`simulation-defect: shrunk ${failure.step.n + 1} → ${shrunk.plan.steps.length} steps in ${shrunk.trials} trials, ${(shrunk.ms / 1000).toFixed(1)} s: ${shrunk.plan.steps.map((s) => `${s.n} ${s.kind}`).join(', ')}`);
  expect(shrunk.plan.steps.length).toBeLessThanOrEqual(5);
  expect(shrunk.plan.steps.map((s) => s.kind)).toContain('sandbox_charge');

  // The shrunk plan still fails with that invariant; without the defect it passes.
  const again = await runSession(shrunk.plan, { defect: 'skip-charge-posting' });
  expect(again.failure?.violations.map((v) => v.invariant)).toContain(balancesMatch.name);
  const clean = await runSession(shrunk.plan);
  expect(clean.failure).toBeNull();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simulation-defect-'));
  try {
    const file = writeReproFile(dir, { plan: shrunk.plan, step: failure.step, violation: balances!, originalSteps: original.steps.length });
    expect(path.basename(file)).toBe(`simulation-repro-${original.seed}-${failure.step.n}.test.ts`);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain(JSON.stringify(shrunk.plan, null, 2));
    expect(text).toContain(balancesMatch.name);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
