import type { WorkflowHandle } from '@temporalio/client';
import { nextTimerQuery, type NextTimer } from '../../../workflows/messages';
/** Polls (real time) until `check` holds. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls the charge workflow's `nextTimer` query until it waits on a timer (it begins first), and returns that timer. */
export async function waitingTimer(handle: WorkflowHandle): Promise<NextTimer> {
  for (let i = 0; i < 100; i++) {
    const timer = await handle.query(nextTimerQuery).catch(() => null);
    if (timer) return timer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the workflow never waited on a timer');
}
