import { temporal } from '@temporalio/proto';
import type { WorkflowHandle } from '@temporalio/client';
import { nextTimerQuery, type NextTimer } from '../../../workflows/messages';

const T = temporal.api.enums.v1.EventType;

/** Polls (real time) until `check` holds. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls the charge workflow's `nextTimer` query until it waits on a timer (it begins first), and returns that timer. */
export async function waitingTimer(handle: WorkflowHandle, timeoutMs = 30_000): Promise<NextTimer> {
  // A deadline in time, not in tries: on a loaded machine a query can take seconds (100 tries of 50 ms
  // ran out in a full npm test beside a simulation).
  // A query that fails (the run's first task not done yet) is asked again; the last failure is named
  // when the deadline passes, so a run stuck on a failing workflow task says why.
  const until = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const timer = await handle.query(nextTimerQuery).catch((error: unknown) => {
      lastError = error;
      return null;
    });
    if (timer) return timer;
    if (Date.now() > until) {
      const why = lastError instanceof Error ? `; the last query failed: ${lastError.message}` : '';
      throw new Error(`the workflow never waited on a timer within ${timeoutMs} ms${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The run's first timer fired (in real time) or the run closed before the test saw it waiting. */
export class TimerMissed extends Error {}

/**
 * `waitingTimer` for the run's first timer, in a test that must act while it waits: when the query
 * finds no timer and the history already holds a fired one (or the run closed), the timer ran out
 * in real time before the test saw it, and this throws TimerMissed at once instead of waiting out
 * the deadline. A sandbox completion timer is 3 s of real time while the test does not let time
 * skip: on a loaded machine the run's second task and the first answered query can take longer
 * (charge-query-during-begin failed so in a .ci/run, 2026-11-28).
 */
export async function firstWaitingTimer(handle: WorkflowHandle, timeoutMs = 30_000): Promise<NextTimer> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const timer = await handle.query(nextTimerQuery).catch(() => null);
    if (timer) return timer;
    const events = (await handle.fetchHistory()).events ?? [];
    if (events.some((e) => e.timerFiredEventAttributes || e.workflowExecutionCompletedEventAttributes || e.workflowExecutionFailedEventAttributes)) {
      throw new TimerMissed(`the run's first timer fired (or the run ended) before the test saw it waiting: ${handle.workflowId}`);
    }
    if (Date.now() > until) return waitingTimer(handle, 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Waits (real time, without letting time skip) until the run has answered every signal it was sent:
 * a workflow task completed after the last signal, or the run closed. Only then may a test await
 * the result, which lets the time-skipping server skip time. Otherwise a timer the signal cancels
 * can fire in skipped time while that workflow task is still in flight, and the test server refuses
 * the task's CancelTimer and never gives the run another task: it hangs (sdk-java#3088, open).
 */
export async function signalsAnswered(handle: WorkflowHandle, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  const closing = [T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, T.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, T.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, T.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, T.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, T.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW];
  for (;;) {
    const types = ((await handle.fetchHistory()).events ?? []).map((e) => e.eventType);
    const lastSignal = types.lastIndexOf(T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
    if (types.some((t) => closing.includes(t!)) || lastSignal === -1 || types.indexOf(T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, lastSignal) !== -1) return;
    if (Date.now() > until) throw new Error(`the run did not answer its signals within ${timeoutMs} ms: ${types.slice(lastSignal).map((t) => T[t!]).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
