import { performance } from 'node:perf_hooks';

export interface LoadResult<T> {
  /** One entry per task that resolved, in completion order. */
  values: T[];
  latenciesMs: number[];
  errors: string[];
  /** From the first task started to the last one settled. */
  wallMs: number;
}

/**
 * Runs `task(0..n-1)` with at most `concurrency` in flight: a fixed set of lanes pulls the next
 * index until all `n` are taken, so the loop is bounded by `n` and nothing is retried. With
 * `intervalMs` > 0 the offered rate is fixed as well: task `i` starts no earlier than
 * `i × intervalMs` after the first (a paced load; a lane that is late starts at once).
 */
export async function runBounded<T>(n: number, concurrency: number, task: (i: number) => Promise<T>, intervalMs = 0): Promise<LoadResult<T>> {
  const values: T[] = [];
  const latenciesMs: number[] = [];
  const errors: string[] = [];
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < n) {
      const i = next++;
      const wait = started + i * intervalMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const t0 = performance.now();
      try {
        values.push(await task(i));
        latenciesMs.push(performance.now() - t0);
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, n)) }, lane));
  return { values, latenciesMs, errors, wallMs: performance.now() - started };
}

export interface PhaseResult {
  name: string;
  n: number;
  concurrency: number;
  /** Latency of the create call (HTTP POST or client start) and its rate. */
  create: LoadResult<string>;
  /** From the first create sent to the last workflow completed (no polling: handle.result()). */
  completeWallMs: number;
  completed: number;
  completeErrors: string[];
  /** Events in the history of the first workflow (how much the server persisted per unit). */
  historyLength: number;
}

export interface PhaseSpec {
  name: string;
  n: number;
  concurrency: number;
  /** > 0: creates are paced, one every `intervalMs` (runBounded). */
  intervalMs?: number;
  /** Starts one unit of work and returns its workflow id. */
  create(i: number): Promise<string>;
  /** Waits for that workflow's result; throws when it is not the expected outcome. */
  awaitResult(workflowId: string): Promise<void>;
  /** History length of one finished workflow. */
  historyLength(workflowId: string): Promise<number>;
}

/** How many `result()` long polls are open at once while waiting for completions. */
const WAIT_LANES = 100;

export async function runPhase(spec: PhaseSpec): Promise<PhaseResult> {
  const t0 = performance.now();
  const create = await runBounded(spec.n, spec.concurrency, spec.create, spec.intervalMs);
  const ids = create.values;
  const waited = await runBounded(ids.length, Math.max(WAIT_LANES, spec.concurrency), (i) => spec.awaitResult(ids[i]));
  const completeWallMs = performance.now() - t0;
  return {
    name: spec.name,
    n: spec.n,
    concurrency: spec.concurrency,
    create,
    completeWallMs,
    completed: waited.values.length,
    completeErrors: waited.errors,
    historyLength: ids.length ? await spec.historyLength(ids[0]).catch(() => NaN) : NaN,
  };
}
