import { condition, defineSignal, executeChild, ParentClosePolicy, setHandler, sleep, startChild } from '@temporalio/workflow';

/**
 * Workflows for test/workflows/simulation-time-locks.test.ts: a child that outlives its parent (as a
 * charge's payment review or a settlement run's batches do) and one that does not.
 */

export const finishSignal = defineSignal('finish');

/** Waits for `finish`, then completes. */
export async function waitingChild(): Promise<string> {
  let finished = false;
  setHandler(finishSignal, () => {
    finished = true;
  });
  await condition(() => finished);
  return 'done';
}

/** Starts `childId` abandoned and completes at once: the child outlives it. */
export async function abandoningParent(childId: string): Promise<void> {
  await startChild(waitingChild, { workflowId: childId, parentClosePolicy: ParentClosePolicy.ABANDON });
}

/** Runs `childId` to its end: the parent hears of the child's close. */
export async function waitingParent(childId: string): Promise<string> {
  return executeChild(waitingChild, { workflowId: childId });
}

/** A timer an hour away, so that the server has something to skip to. */
export async function sleeper(): Promise<void> {
  await sleep(3_600_000);
}
