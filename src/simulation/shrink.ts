import type { Plan, Ref, Step, StepKind } from './types';

/**
 * What a trial of a candidate plan reports: the invariant that failed (and, when known, the step
 * after which it failed), or null when the candidate ran clean.
 */
export interface TrialFailure {
  invariant: string;
  /** The `n` of the step after which it failed: the steps after it never ran, so they are cut. */
  step?: number;
}

export interface ShrinkTrial {
  /** 1-based count of trials run (cached candidates are not run again and not counted). */
  trial: number;
  /** How many steps the candidate had. */
  size: number;
  /** Whether the candidate still failed with the target invariant. */
  failed: boolean;
  /** The invariant the candidate failed with, if any (a different one does not count). */
  invariant: string | null;
  /** How many steps the smallest failing plan has so far. */
  best: number;
}

export interface ShrinkOptions {
  /** The invariant that must keep failing; when absent the whole plan is tried first to learn it. */
  invariant?: string;
  /** At most this many trials (default 500); then the smallest failing plan found so far. */
  maxTrials?: number;
  /** Stop trying once `performance.now()` passes this; then the smallest failing plan found so far. */
  deadline?: number;
  /** Called after every trial (progress lines). */
  onTrial?: (trial: ShrinkTrial) => void;
}

export const DEFAULT_MAX_TRIALS = 500;

/** Thrown when the plan given does not fail in the first place. */
export class NothingToShrinkError extends Error {}

class OutOfTrials extends Error {}

/**
 * Cuts a failing plan down to a short one that still fails with the SAME invariant. First two guesses
 * (referenceGuesses: the failing step with the steps that create what it references, then with the
 * time jumps too); when one still fails, single steps are removed from it until none can go;
 * otherwise delta debugging (Zeller's ddmin) over the steps, then that single-step pass. Steps
 * keep their `n`; a candidate is any subset of the steps in their order (a step whose reference was
 * cut is skipped by the runner, so every subset is a valid plan). Pure given `stillFails`: the same
 * plan and the same answers give the same trials in the same order and the same result.
 */
export async function shrink(
  plan: Plan,
  stillFails: (candidate: Plan) => Promise<TrialFailure | null>,
  options: ShrinkOptions = {},
): Promise<Plan> {
  const maxTrials = options.maxTrials ?? DEFAULT_MAX_TRIALS;
  const cache = new Map<string, boolean>();
  let trials = 0;
  let target = options.invariant;
  let best: Step[] = plan.steps;

  const keyOf = (steps: Step[]) => steps.map((s) => s.n).join(',');
  const outOfBudget = () => trials >= maxTrials || (options.deadline !== undefined && performance.now() >= options.deadline);

  /** Runs a candidate (once per distinct subset); true when it fails with the target invariant. */
  const fails = async (steps: Step[]): Promise<Step[] | null> => {
    const key = keyOf(steps);
    const known = cache.get(key);
    if (known !== undefined) return known ? steps : null;
    if (outOfBudget()) throw new OutOfTrials();
    trials += 1;
    const answer = await stillFails({ seed: plan.seed, steps });
    const failed = answer !== null && (target === undefined || answer.invariant === target);
    if (failed && target === undefined) target = answer!.invariant;
    cache.set(key, failed);
    // The run stopped after the failing step: the steps after it never ran and can go at once.
    const kept = failed && answer!.step !== undefined ? steps.filter((s) => s.n <= answer!.step!) : steps;
    if (kept.length < steps.length) cache.set(keyOf(kept), true);
    if (failed && kept.length < best.length) best = kept;
    options.onTrial?.({ trial: trials, size: steps.length, failed, invariant: answer?.invariant ?? null, best: best.length });
    return failed ? kept : null;
  };

  try {
    if (target === undefined) {
      const first = await fails(plan.steps);
      if (!first) throw new NothingToShrinkError(`seed ${plan.seed}: the plan of ${plan.steps.length} steps does not fail`);
    } else {
      cache.set(keyOf(plan.steps), true);
    }
    // First the cheap guesses (two trials at most): the failing step with what it references, then
    // with the time jumps too; ddmin starts from the first of them that still fails.
    // A guess that still fails is small and mostly needed: single removals cost fewer trials than ddmin.
    let guessed = false;
    for (const guess of referenceGuesses(best)) {
      if (guess.length >= best.length) continue;
      if (await fails(guess)) {
        guessed = true;
        break;
      }
    }
    let current = guessed ? best : await ddmin(best, fails);
    current = await removeSingles(current, fails);
    best = current;
  } catch (error) {
    if (!(error instanceof OutOfTrials)) throw error;
  }
  return { seed: plan.seed, steps: best };
}

/** What each creating step kind creates (its `params.ref_index` is the index of the creation): plan.ts. */
const CREATES: Partial<Record<StepKind, Ref['kind']>> = {
  create_merchant: 'merchant',
  create_endpoint: 'endpoint',
  sandbox_charge: 'charge',
  live_charge: 'charge',
  payout: 'payout',
  refund: 'refund',
  dispute: 'dispute',
};

/**
 * The last step (the one after which the invariant failed) with, transitively, every step that
 * creates what it references (a request's index counts too); then the same with every time jump
 * before it (a charge succeeds, a deadline passes, only when time moves). In plan order.
 */
export function referenceGuesses(steps: Step[]): Step[][] {
  const last = steps.at(-1);
  if (!last) return [];
  const creator = new Map<string, Step>();
  for (const step of steps) {
    const made = CREATES[step.kind];
    if (made && step.params.ref_index !== undefined) creator.set(`${made}#${String(step.params.ref_index)}`, step);
    if (step.params.request_index !== undefined) creator.set(`request#${String(step.params.request_index)}`, step);
  }
  const kept = new Set<Step>([last]);
  const todo = [last];
  while (todo.length > 0) {
    for (const r of todo.pop()!.refs ?? []) {
      const source = creator.get(`${r.kind}#${r.index}`);
      if (source && !kept.has(source)) {
        kept.add(source);
        todo.push(source);
      }
    }
  }
  const closure = steps.filter((s) => kept.has(s));
  const withJumps = steps.filter((s) => kept.has(s) || s.kind === 'time_jump');
  return [closure, withJumps];
}

/** ddmin: try chunks, then complements, at finer and finer granularity. */
async function ddmin(start: Step[], fails: (steps: Step[]) => Promise<Step[] | null>): Promise<Step[]> {
  let current = start;
  let n = 2;
  while (current.length >= 2) {
    const chunks = split(current, n);
    let reduced: Step[] | null = null;
    for (const chunk of chunks) {
      reduced = await fails(chunk);
      if (reduced) break;
    }
    if (reduced) {
      current = reduced;
      n = 2;
      continue;
    }
    if (n > 2) {
      for (let i = 0; i < chunks.length; i += 1) {
        reduced = await fails(chunks.filter((_, j) => j !== i).flat());
        if (reduced) break;
      }
    }
    if (reduced) {
      current = reduced;
      n = Math.max(n - 1, 2);
      continue;
    }
    if (n >= current.length) break;
    n = Math.min(current.length, n * 2);
  }
  return current;
}

/** Removes one step at a time, from the end, until no single step can go. */
async function removeSingles(start: Step[], fails: (steps: Step[]) => Promise<Step[] | null>): Promise<Step[]> {
  let current = start;
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = current.length - 1; i >= 0 && current.length > 1; i -= 1) {
      const reduced = await fails(current.filter((_, j) => j !== i));
      if (reduced) {
        current = reduced;
        changed = true;
        i = Math.min(i, current.length);
      }
    }
  }
  return current;
}

/** `items` in `n` nearly equal consecutive chunks (no empty chunk). */
function split<T>(items: T[], n: number): T[][] {
  const chunks: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i += 1) {
    const end = start + Math.floor((items.length - start) / (n - i));
    if (end > start) chunks.push(items.slice(start, end));
    start = end;
  }
  return chunks;
}
