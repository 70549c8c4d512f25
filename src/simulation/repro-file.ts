import fs from 'node:fs';
import path from 'node:path';
import type { Plan, Step, Violation } from './types';

/** What a reproduction file records: the shrunk plan and the failure it reproduces. */
export interface Reproduction {
  /** The shrunk plan (its steps keep their `n` in the original plan). */
  plan: Plan;
  /** The step of the ORIGINAL run after which the invariant failed. */
  step: Step;
  /** The invariant that failed, and its lines as the original run printed them. */
  violation: Violation;
  /** How many steps the original plan had (for the comment). */
  originalSteps: number;
  /** The shrunk plan run again before it was written (issue 44): how many runs, how many failed with the invariant. */
  reruns?: { runs: number; failed: number };
}

/** `failed 3 of 3 re-runs (flake rate 0 %)`. */
export function rerunLine(reruns: { runs: number; failed: number }): string {
  return `failed ${reruns.failed} of ${reruns.runs} re-runs (flake rate ${Math.round((100 * (reruns.runs - reruns.failed)) / reruns.runs)} %)`;
}

/** The file's name: test/integration/simulation-repro-<seed>-<step>.test.ts. */
export function reproFileName(seed: number, step: number): string {
  return `simulation-repro-${seed}-${step}.test.ts`;
}

/** A comment line safe inside a block comment (no `*\/`, one line). */
const commentSafe = (line: string) => line.replace(/\*\//g, '* /').replace(/[\r\n]+/g, ' ');

/**
 * The text of a jest file that replays the shrunk plan on a fresh engine with every invariant and
 * expects no failure: it fails while the defect is there, and guards the fix once it is gone. Written
 * for test/integration/ (its imports are relative to that folder).
 */
export function reproFileText(repro: Reproduction): string {
  const { plan, step, violation } = repro;
  const lines = violation.lines.slice(0, 20).map((l) => ` *   ${commentSafe(l)}`);
  if (violation.lines.length > 20) lines.push(` *   … ${violation.lines.length - 20} more`);
  const planJson = JSON.stringify(plan, null, 2);
  const title = `simulation seed ${plan.seed} (${plan.steps.length} of ${repro.originalSteps} steps): ${violation.invariant} holds after every step`;
  return `/**
 * A reproduction written by \`npm run simulate\` (issue 33, docs/simulation.md, src/simulation/repro-file.ts).
 * Seed ${plan.seed}: after step ${step.n} (${step.kind} ${commentSafe(JSON.stringify(step.params))}) the invariant
 * "${commentSafe(violation.invariant)}" failed:
${lines.join('\n')}
 * The shrinker cut the plan from ${repro.originalSteps} steps to the ${plan.steps.length} below (steps keep their number in
 * the original plan)${repro.reruns ? `; run again before this file was written, it ${rerunLine(repro.reruns)}` : ''}. The test replays them on a fresh engine with every invariant and expects none to
 * fail: it fails while the defect is there, and guards the fix once it is gone.
 */
import { startEngine } from '../../src/simulation/engine';
import { ALL_INVARIANTS } from '../../src/simulation/invariants';
import { runPlan } from '../../src/simulation/run';
import type { Plan } from '../../src/simulation/types';

const PLAN: Plan = ${planJson};

test(${JSON.stringify(title)}, async () => {
  const engine = await startEngine({ seed: PLAN.seed });
  try {
    const result = await runPlan(engine, PLAN, ALL_INVARIANTS);
    const failure = result.failure && { step: result.failure.step, violations: result.failure.violations };
    expect(failure).toBeNull();
  } finally {
    await engine.close();
  }
}, 600_000);
`;
}

/** Writes the reproduction into `dir` (test/integration/ for the CLI) and answers its path. */
export function writeReproFile(dir: string, repro: Reproduction): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, reproFileName(repro.plan.seed, repro.step.n));
  fs.writeFileSync(file, reproFileText(repro));
  return file;
}
