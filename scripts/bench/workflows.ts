import { defineUpdate, setHandler, sleep } from '@temporalio/workflow';

/** Bare workflows for the baseline: no database, no activities, no search attributes. */
export const acceptUpdate = defineUpdate<string>('accept');

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
