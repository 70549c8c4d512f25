import type { Plan } from './types';
import { runSession, type SessionOptions } from './session';
import { differingTables, type StateHash } from './state-hash';

/** What `--replay-check` found: the first step after which the two runs' databases differ, or none. */
export interface ReplayCheck {
  steps: number;
  /** The first step (n, kind) whose state hashes differ, with the tables that do. */
  firstDifference: { n: number; kind: string; tables: ReturnType<typeof differingTables> } | null;
  /** The steps whose outcomes (trace lines) differ, by n. */
  traceDifferences: number[];
  /** The first of them as each run told it. */
  firstTraceDifference: { n: number; first: string; second: string } | null;
}

/**
 * Runs `plan` twice, each on a fresh engine of the same seed, with the database's state hash after
 * every step (state-hash.ts), and compares them step by step (issue 44: "a hash of the database state
 * after every step, and --replay-check that runs a plan twice and names the first step whose hashes
 * differ").
 */
export async function replayCheck(plan: Plan, options: SessionOptions): Promise<ReplayCheck> {
  const runs: Array<{ hashes: Map<number, StateHash>; trace: Map<number, string> }> = [];
  for (let i = 0; i < 2; i++) {
    const hashes = new Map<number, StateHash>();
    const result = await runSession(plan, { ...options, onStateHash: (outcome, hash) => hashes.set(outcome.n, hash) });
    runs.push({ hashes, trace: new Map(result.trace.map((o) => [o.n, `${o.result} ${o.detail}`])) });
  }
  const [a, b] = runs as [(typeof runs)[0], (typeof runs)[0]];
  let firstDifference: ReplayCheck['firstDifference'] = null;
  const traceDifferences: number[] = [];
  for (const step of plan.steps) {
    if (a.trace.get(step.n) !== b.trace.get(step.n)) traceDifferences.push(step.n);
    const ha = a.hashes.get(step.n);
    const hb = b.hashes.get(step.n);
    if (!firstDifference && ha && hb) {
      const tables = differingTables(ha, hb);
      if (tables.length > 0) firstDifference = { n: step.n, kind: step.kind, tables };
    }
  }
  const n = traceDifferences[0];
  const firstTraceDifference = n === undefined ? null : { n, first: a.trace.get(n) ?? '(not run)', second: b.trace.get(n) ?? '(not run)' };
  return { steps: Math.min(a.hashes.size, b.hashes.size), firstDifference, traceDifferences, firstTraceDifference };
}
