import { ApplicationFailure } from '@temporalio/common';

/**
 * The simulation's hooks into the worker's real activities (createPaymentsWorker's `wrapActivities`):
 * `failActivity` makes the next N calls of an activity fail with a retryable error before they run
 * (the activity's retry policy takes it from there), and `afterActivity` runs a function on an
 * activity's result (what an injected defect uses: src/simulation/defects.ts). An activity without a
 * failure due or a hook runs untouched.
 */

type AnyActivity = (...args: any[]) => Promise<unknown>; // eslint-disable-line @typescript-eslint/no-explicit-any
type After = (result: unknown, args: unknown[]) => unknown;

export interface ActivityHooks {
  /** For createPaymentsWorker's `wrapActivities`. */
  wrap<T extends object>(activities: T): T;
  failActivity(name: string, times: number): void;
  /** Replaces the activity's result by what `fn` answers (it may throw); returns a function that removes the hook. */
  afterActivity(name: string, fn: After): () => void;
  /** Failures still due, by activity (for a clear message when one never ran). */
  pendingFailures(): Record<string, number>;
}

export function createActivityHooks(): ActivityHooks {
  const failures = new Map<string, number>();
  const after = new Map<string, After>();
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
          const result = await fn(...args);
          const hook = after.get(name);
          return hook ? hook(result, args) : result;
        };
      }
      return wrapped as T;
    },
    failActivity(name, times) {
      failures.set(name, (failures.get(name) ?? 0) + times);
    },
    afterActivity(name, fn) {
      after.set(name, fn);
      return () => {
        if (after.get(name) === fn) after.delete(name);
      };
    },
    pendingFailures() {
      return Object.fromEntries([...failures].filter(([, n]) => n > 0));
    },
  };
}
