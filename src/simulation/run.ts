import { withFaultInFlight } from './in-flight';
import { stateHash, type StateHash } from './state-hash';
import { STEP_HANDLERS } from './steps';
import type { Invariant, Plan, RunResult, SimContext, StepOutcome, Violation } from './types';

export interface RunOptions {
  /** Called with each step's outcome as soon as it is known (progress lines). */
  onStep?(outcome: StepOutcome): void;
  /** Called after each step's settle and checks, with the real time each part took (`--verbose`). */
  onChecked?(outcome: StepOutcome, timings: StepTimings): void;
  /** Stop after the first step that breaks an invariant (default true). */
  stopAtFirstFailure?: boolean;
  /** Called after each step's checks with the database's state hash (state-hash.ts; `--replay-check`). */
  onStateHash?(outcome: StepOutcome, hash: StateHash): void;
}

/** Real milliseconds of one step: its handler, the settle after it, the invariants. */
export interface StepTimings {
  stepMs: number;
  settleMs: number;
  checkMs: number;
}

/**
 * Every invariant on the engine as it is now: the broken ones, each with its lines, in the order of
 * `invariants`. They only read, each on a session of its own, so they run at once (issue 44's
 * throughput: a step's checks take as long as the slowest, not the sum).
 */
export async function checkInvariants(ctx: SimContext, invariants: Invariant[]): Promise<Violation[]> {
  const results = await Promise.all(invariants.map(async (invariant) => ({ invariant: invariant.name, lines: await invariant.check(ctx) })));
  return results.filter((r) => r.lines.length > 0);
}

/**
 * Runs a plan on an engine: for each step its handler, then the engine settles, then every invariant.
 * A step that breaks an invariant ends the run (unless `stopAtFirstFailure` is false: the first such
 * step is still the one reported). A handler's throw (an engine failure) propagates.
 */
export async function runPlan(ctx: SimContext, plan: Plan, invariants: Invariant[], options: RunOptions = {}): Promise<RunResult> {
  const stopAtFirstFailure = options.stopAtFirstFailure ?? true;
  const trace: StepOutcome[] = [];
  let failure: RunResult['failure'] = null;
  for (const step of plan.steps) {
    const handler = STEP_HANDLERS[step.kind];
    if (!handler) throw new Error(`no handler for step kind "${step.kind}" (src/simulation/steps/index.ts)`);
    const t0 = performance.now();
    const outcome = await withFaultInFlight(ctx, step, () => handler(ctx, step));
    trace.push(outcome);
    options.onStep?.(outcome);
    const t1 = performance.now();
    await ctx.settle();
    const t2 = performance.now();
    const violations = await checkInvariants(ctx, invariants);
    options.onChecked?.(outcome, { stepMs: Math.round(t1 - t0), settleMs: Math.round(t2 - t1), checkMs: Math.round(performance.now() - t2) });
    if (options.onStateHash) options.onStateHash(outcome, await stateHash(ctx.orm));
    if (violations.length > 0 && !failure) {
      failure = { step, violations };
      if (stopAtFirstFailure) break;
    }
  }
  return { seed: plan.seed, stepsRun: trace.length, trace, failure };
}
