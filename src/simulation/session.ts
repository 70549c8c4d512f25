import { injectDefect, type DefectName } from './defects';
import type { StateHash } from './state-hash';
import { startEngine } from './engine';
import { ALL_INVARIANTS } from './invariants';
import { runPlan, type StepTimings } from './run';
import { shrink, type ShrinkTrial, type TrialFailure } from './shrink';
import type { SimTemplate } from './sim-database';
import type { Invariant, Plan, RunResult, Step, StepOutcome } from './types';

/**
 * One simulation run from a plan to its result, on a fresh engine (its own database, its own test
 * server), as `npm run simulate`, the short test in npm test, the defect test and a reproduction file
 * run it; and the shrinking of a failure, each trial on a fresh engine. With a template (sim-database.ts
 * `createSimTemplate`), each run's database is a copy of it instead of a newly migrated one.
 */

export interface SessionOptions {
  /** An injected defect (src/simulation/defects/). */
  defect?: DefectName;
  /** Keep the run's database instead of dropping it. */
  keepDb?: boolean;
  /** The PostgreSQL server the run's database goes on (default: the engine's, TEST_DATABASE_URL else DATABASE_URL). */
  serverUrl?: string;
  /** A template to copy the run's database from instead of migrating one (engine.ts `template`); its server is the run's. */
  template?: SimTemplate;
  /** Every invariant unless told. */
  invariants?: Invariant[];
  /** Each step's outcome as it happens (progress). */
  onStep?: (outcome: StepOutcome) => void;
  /** Each step after its settle and checks, with the real time of each part (`--verbose`). */
  onChecked?: (outcome: StepOutcome, timings: StepTimings) => void;
  /** What keeps a slow time jump or settle busy, every 20 s of real time (`--verbose`). */
  onSlow?: (line: string) => void;
  /** Real-time bound of the whole run (default 30 minutes): past it the run throws, naming the last step done. */
  timeoutMs?: number;
  /** Each step's database state hash after its checks (state-hash.ts; `--replay-check`). */
  onStateHash?: (outcome: StepOutcome, hash: StateHash) => void;
}

export const DEFAULT_RUN_TIMEOUT_MS = 30 * 60_000;

/**
 * Real-time bound of one settle in a session (the engine's own default is 60 s): a webhook lane
 * timing out on a slow receiver, on a loaded machine, took longer than 60 s without anything being
 * stuck (seed 3003 while `.ci/run` ran beside it). A hang still ends the run, three minutes later.
 */
export const SESSION_SETTLE_BOUND_MS = 180_000;

/** The engine's close gets this long before the run gives up on it (a hung close must not hang the CLI). */
const CLOSE_BOUND_MS = 60_000;

function bounded<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface SessionResult extends RunResult {
  /** Wall time of the run, engine start and stop included. */
  ms: number;
  /** The run's database, when kept. */
  database?: string;
}

/** Runs `plan` on a fresh engine with every invariant (or those given); the engine is closed after. */
export async function runSession(plan: Plan, options: SessionOptions = {}): Promise<SessionResult> {
  const started = performance.now();
  const engine = await startEngine({ seed: plan.seed, keepDb: options.keepDb, serverUrl: options.serverUrl, template: options.template, onSlow: options.onSlow, settleBoundMs: SESSION_SETTLE_BOUND_MS });
  let last: StepOutcome | undefined;
  const timeoutMs = options.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
  try {
    if (options.defect) injectDefect(options.defect, { hooks: engine.hooks, orm: engine.orm, fakePartner: engine.fakePartner, client: engine.temporal.client, sendHooks: engine.sendHooks, engineOrm: engine.engineOrm });
    const run = runPlan(engine, plan, options.invariants ?? ALL_INVARIANTS, {
      onStep: (outcome) => {
        last = outcome;
        options.onStep?.(outcome);
      },
      onChecked: options.onChecked,
      onStateHash: options.onStateHash,
    });
    const result = await bounded(run, timeoutMs, () => {
      const next = plan.steps[last ? plan.steps.findIndex((s) => s.n === last!.n) + 1 : 0];
      return `seed ${plan.seed}: the run did not finish within ${Math.round(timeoutMs / 1000)} s (an engine hang): ${last ? `the last step done was ${last.n} ${last.kind}` : 'no step done'}${next ? `; step ${next.n} ${next.kind} (or the settle and checks after the last) never ended` : ''}`;
    });
    // An SDK that lost track of a workflow makes the run's verdict worthless: an engine error (sdk-faults.ts).
    const faults = engine.sdkFaults();
    if (faults.length > 0) throw new Error(`seed ${plan.seed}: the Temporal SDK reported ${faults.length} fault${faults.length === 1 ? '' : 's'} during the run (first: ${faults[0]})`);
    return { ...result, ms: Math.round(performance.now() - started), ...(options.keepDb ? { database: engine.database } : {}) };
  } finally {
    await bounded(engine.close(), CLOSE_BOUND_MS, () => `seed ${plan.seed}: the engine did not close within ${CLOSE_BOUND_MS / 1000} s`).catch((error: unknown) => {
      // The close goes on in the background; the process's Date and id sources are given back now, so
      // the next seed of this process can start (before, it failed "the process Date is already replaced").
      engine.releaseProcess();
      console.error(`simulation: ${(error as Error).message}; the process's clock and id sources given back, the close goes on in the background`);
    });
  }
}

/** A failure as the CLI prints it: the seed, the step (n, kind, refs, params), each broken invariant and its lines. */
export function describeFailure(seed: number, failure: NonNullable<RunResult['failure']>): string[] {
  const { step, violations } = failure;
  return [
    `FAILED seed ${seed} after step ${step.n}: ${stepLine(step)}`,
    ...violations.flatMap((v) => [`  invariant: ${v.invariant}`, ...v.lines.slice(0, 30).map((l) => `    ${l}`), ...(v.lines.length > 30 ? [`    … ${v.lines.length - 30} more`] : [])]),
  ];
}

/** `sandbox_charge refs=[merchant#0] {"amount":1500,…}`. */
export function stepLine(step: Step): string {
  const refs = step.refs && step.refs.length > 0 ? ` refs=[${step.refs.map((r) => `${r.kind}#${r.index}`).join(',')}]` : '';
  return `${step.kind}${refs} ${JSON.stringify(step.params)}`;
}

/** What a trial reports to the shrinker: the target invariant when it failed among others, else the first. */
export function trialFailure(result: RunResult, target: string): TrialFailure | null {
  if (!result.failure) return null;
  const names = result.failure.violations.map((v) => v.invariant);
  return { invariant: names.includes(target) ? target : names[0]!, step: result.failure.step.n };
}

export interface ShrinkReport {
  plan: Plan;
  trials: number;
  ms: number;
}

/**
 * Shrinks a failing run's plan keeping `invariant` failing, each trial on a fresh engine with the same
 * options (the defect, if any, included). The steps after the failing one never ran: they go first.
 */
export async function shrinkSession(
  plan: Plan,
  failure: NonNullable<RunResult['failure']>,
  invariant: string,
  options: SessionOptions & { maxTrials?: number; deadline?: number; onTrial?: (trial: ShrinkTrial) => void; onEngineError?: (error: Error) => void } = {},
): Promise<ShrinkReport> {
  const started = performance.now();
  let trials = 0;
  const upToFailure: Plan = { seed: plan.seed, steps: plan.steps.filter((s) => s.n <= failure.step.n) };
  const shrunk = await shrink(
    upToFailure,
    // A trial the engine could not finish (it threw) does not count as failing with the invariant.
    (candidate) => trial(candidate, invariant, options, options.onEngineError),
    {
      invariant,
      maxTrials: options.maxTrials,
      deadline: options.deadline,
      onTrial: (t) => {
        trials = t.trial;
        options.onTrial?.(t);
      },
    },
  );
  return { plan: shrunk, trials, ms: Math.round(performance.now() - started) };
}

/**
 * Runs a shrunk plan `runs` times more (issue 44: "a shrunk reproduction is re-run three times before
 * it is written, with its flake rate printed"), each on a fresh engine with the same options: how many
 * failed with `invariant`. A run the engine could not finish counts as not failing.
 */
export async function rerunShrunk(plan: Plan, invariant: string, options: SessionOptions, runs = 3): Promise<{ runs: number; failed: number }> {
  let failed = 0;
  for (let i = 0; i < runs; i++) if ((await trial(plan, invariant, options))?.invariant === invariant) failed += 1;
  return { runs, failed };
}

/** One run of a candidate plan on a fresh engine with the session's options: how it failed, if it did; a run the engine could not finish counts as not failing. */
async function trial(plan: Plan, invariant: string, options: SessionOptions, onEngineError?: (error: Error) => void): Promise<TrialFailure | null> {
  try {
    return trialFailure(await runSession(plan, { defect: options.defect, invariants: options.invariants, serverUrl: options.serverUrl, template: options.template, timeoutMs: options.timeoutMs }), invariant);
  } catch (error) {
    onEngineError?.(error as Error);
    return null;
  }
}
