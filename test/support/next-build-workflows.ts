/**
 * "Build B" of test/system/worker-versioning.test.ts: the next release of the workflow code, in
 * which payoutWorkflow starts with a timer the released one does not have. A run started on the
 * released build cannot replay on this one (its first command differs), so it must stay on the build
 * it started on; a run started here shows the timer in its history. Never part of the real bundle
 * (workflows/index.ts).
 */
import { sleep } from '@temporalio/workflow';
import { payoutWorkflow as released } from '../../workflows/payout';

export * from '../../workflows';

/** The summary of the timer only this build's payouts start with. */
export const NEXT_BUILD_TIMER = 'next build: a first step the released payout workflow does not have';

export async function payoutWorkflow(...args: Parameters<typeof released>): ReturnType<typeof released> {
  await sleep(1, { summary: NEXT_BUILD_TIMER });
  return released(...args);
}
