import { defineUpdate, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { benchActivities } from './activities';

/** Bare workflows for the baseline: no database, no search attributes, and no activity but in bareActivityWorkflow. */
export const acceptUpdate = defineUpdate<string>('accept');

const { benchNoop } = proxyActivities<typeof benchActivities>({ startToCloseTimeout: '10 seconds' });

export async function bareWorkflow(): Promise<string> {
  return 'done';
}

export async function bareSleepWorkflow(ms: number): Promise<string> {
  await sleep(ms);
  return 'done';
}

/** Like the charge workflow's shape: accepted through update-with-start, then a durable timer. */
export async function bareUpdateWorkflow(ms: number): Promise<string> {
  setHandler(acceptUpdate, () => 'accepted');
  await sleep(ms);
  return 'done';
}

/** One trivial activity on the bare worker's own task queue, then done: the floor for one webhook delivery workflow. */
export async function bareActivityWorkflow(): Promise<string> {
  return benchNoop();
}
