import { plan } from '../../src/simulation/plan';
import type { Plan } from '../../src/simulation/types';

/**
 * The plan the shrinking test runs (test/system/simulation-defect-shrink.test.ts): the first seed whose first succeeding sandbox charge
 * comes after a few other steps and no live charge, and succeeds within 3 steps; the plan cut 2 steps
 * after that charge. Pure (plan()): the same plan on every run.
 */
export function defectPlan(): { plan: Plan; chargeStep: number } {
  for (let seed = 1; seed < 10_000; seed++) {
    const p = plan(seed, 20);
    const at = p.steps.findIndex((s) => s.kind === 'sandbox_charge' && s.params.outcome === 'succeed');
    // Mobile money awaits the customer's approval until time passes: a time jump must follow within the
    // two steps the plan keeps after it (a money-path insertion can push it a step later: seed 4 since f16ce0f).
    const succeedsSoon = at >= 0 && (p.steps[at]!.params.channel !== 'mobile_money' || p.steps.slice(at + 1, at + 3).some((s) => s.kind === 'time_jump'));
    if (at >= 4 && at <= 8 && succeedsSoon && !p.steps.slice(0, at).some((s) => s.kind === 'live_charge')) return { plan: { seed, steps: p.steps.slice(0, at + 3) }, chargeStep: p.steps[at]!.n };
  }
  throw new Error('no seed below 10000 has a succeeding sandbox charge within its first steps: has plan() changed?');
}
