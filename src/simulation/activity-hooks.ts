import { ApplicationFailure } from '@temporalio/common';

/**
 * The simulation's hooks into the worker's real activities (createPaymentsWorker's `wrapActivities`):
 * `failActivity` makes the next N calls of an activity fail with a retryable error before they run
 * (the activity's retry policy takes it from there), or, `after` them, once they ran: the side effect
 * committed and its answer lost, Temporal's road to a repeated effect; `afterActivity` runs a function on an
 * activity's result and `aroundActivity` one instead of it (what an injected defect uses: src/simulation/defects/). An activity without a
 * failure due or a hook runs untouched.
 */

type AnyActivity = (...args: any[]) => Promise<unknown>; // eslint-disable-line @typescript-eslint/no-explicit-any
type After = (result: unknown, args: unknown[]) => unknown;
type Around = (args: unknown[], run: () => Promise<unknown>) => Promise<unknown>;

export interface ActivityHooks {
  /** For createPaymentsWorker's `wrapActivities`. */
  wrap<T extends object>(activities: T): T;
  /** The next `times` calls of `name` fail (replacing what was due: 0 cancels); `when: 'after'`: each once it ran (its answer lost). */
  failActivity(name: string, times: number, when?: 'before' | 'after'): void;
  /** Replaces the activity's result by what `fn` answers (it may throw); returns a function that removes the hook. */
  afterActivity(name: string, fn: After): () => void;
  /** Runs `fn` instead of the activity, with the real one as `run` (called or not); returns a function that removes the hook. */
  aroundActivity(name: string, fn: Around): () => void;
  /** Failures still due, by activity (for a clear message when one never ran). */
  pendingFailures(): Record<string, number>;
  /** Activities running in this process now (local ones included), by name. */
  inFlight(): Record<string, number>;
}

export function createActivityHooks(): ActivityHooks {
  const failures = new Map<string, number>();
  const lost = new Map<string, number>();
  const after = new Map<string, After>();
  const around = new Map<string, Around>();
  const running = new Map<string, number>();
  return {
    wrap<T extends object>(activities: T): T {
      const wrapped: Record<string, AnyActivity> = {};
      for (const [name, fn] of Object.entries(activities as Record<string, AnyActivity>)) {
        wrapped[name] = async (...args: unknown[]) => {
          const due = failures.get(name) ?? 0;
          if (due > 0) {
            failures.set(name, due - 1);
            throw ApplicationFailure.retryable(`simulated failure of ${name} (${due - 1} more to come)`, 'SimulatedActivityFailure');
          }
          running.set(name, (running.get(name) ?? 0) + 1);
          try {
            const instead = around.get(name);
            const result = instead ? await instead(args, () => fn(...args)) : await fn(...args);
            const hook = after.get(name);
            const answer = hook ? await hook(result, args) : result;
            const toLose = lost.get(name) ?? 0;
            if (toLose > 0) {
              lost.set(name, toLose - 1);
              throw ApplicationFailure.retryable(`simulated loss of ${name}'s answer after it ran (${toLose - 1} more to come)`, 'SimulatedLostAnswer');
            }
            return answer;
          } finally {
            running.set(name, running.get(name)! - 1);
          }
        };
      }
      return wrapped as T;
    },
    failActivity(name, times, when = 'before') {
      (when === 'after' ? lost : failures).set(name, Math.max(0, times));
    },
    afterActivity(name, fn) {
      after.set(name, fn);
      return () => {
        if (after.get(name) === fn) after.delete(name);
      };
    },
    aroundActivity(name, fn) {
      around.set(name, fn);
      return () => {
        if (around.get(name) === fn) around.delete(name);
      };
    },
    inFlight() {
      return Object.fromEntries([...running].filter(([, n]) => n > 0));
    },
    pendingFailures() {
      return Object.fromEntries([...failures, ...[...lost].map(([name, n]) => [`${name} (answer lost)`, n] as const)].filter(([, n]) => n > 0));
    },
  };
}
