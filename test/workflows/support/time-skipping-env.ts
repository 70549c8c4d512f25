import { TestWorkflowEnvironment } from '@temporalio/testing';
import { timeLockReleaser } from '../../../src/simulation/time-locks';
import { testServerPath } from '../../support/binaries';

/** How often, while a test lets time skip, leaked time locks are looked for again. */
const RELEASE_EVERY_MS = 250;

/**
 * The time-skipping test server of the workflow tests, with its leaked time locks given back whenever a
 * test lets time skip (`env.sleep`, awaiting a result).
 *
 * The server keeps a time lock for good whenever a child workflow closes after its parent (a retried
 * settlement batch, a charge's payment review: src/simulation/time-locks.ts explains the leak, and
 * test/workflows/simulation-time-locks.test.ts shows it). From then on every later skip in the file
 * passed at the pace of real time: settlement-workflow.test.ts spent about 40 s of its 48 s waiting out
 * sandbox timers that the server no longer skipped (issue 42). The simulation's engine gives the locks
 * back the same way; the releaser refuses an unlock the server holds no lock for, so a wrong count
 * fails the test loudly.
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
  const releaser = timeLockReleaser(env);

  async function releasingWhile<T>(work: () => Promise<T>): Promise<T> {
    await releaser.release();
    let done = false;
    const again = (async () => {
      while (!done) {
        await new Promise((resolve) => setTimeout(resolve, RELEASE_EVERY_MS));
        if (!done) await releaser.release();
      }
    })();
    try {
      return await work();
    } finally {
      done = true;
      await again;
    }
  }

  const sleep = env.sleep;
  Object.defineProperty(env, 'sleep', { value: (durationMs: Parameters<typeof sleep>[0]) => releasingWhile(() => sleep(durationMs)) });
  const workflows = env.client.workflow;
  const result = workflows.result.bind(workflows);
  Object.defineProperty(workflows, 'result', { value: (...args: Parameters<typeof result>) => releasingWhile(() => result(...args)) });
  return env;
}
