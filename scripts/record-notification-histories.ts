/**
 * Records the notificationWorkflow histories that test/replay/notification-replay.test.ts replays
 * against the current workflow code, as test/replay/histories/notificationWorkflow/<scenario>.json, on
 * the time-skipping test server with the scripted sender of
 * test/workflows/support/fake-notification-activities.ts.
 *
 *   npx tsx scripts/record-notification-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { randomBase62 } from '../src/support/new-id';
import { startNotificationWorkflow } from '../src/temporal/notification-start';
import { webhookTaskQueueFor } from '../src/temporal/task-queues';
import { testServerPath } from '../test/support/binaries';
import { declareSearchAttributes } from '../test/workflows/support/charge-env';
import { FakeNotificationSender, notificationInput, sendFailed, sent, skippedNotification, type NotificationStep } from '../test/workflows/support/fake-notification-activities';
import { installRuntime, workflowBundle } from '../workers/workflow-bundle';
import type { notificationWorkflow } from '../workflows/notification';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/notificationWorkflow');

interface RecorderEnv {
  env: TestWorkflowEnvironment;
  fake: FakeNotificationSender;
  taskQueue: string;
  close(): Promise<void>;
}

async function startEnv(): Promise<RecorderEnv> {
  installRuntime('ERROR');
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
  await declareSearchAttributes(env);
  const fake = new FakeNotificationSender();
  const taskQueue = `notifications-${randomBase62(8)}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: webhookTaskQueueFor(taskQueue, 'sandbox'), workflowBundle: await workflowBundle(), activities: fake.activities });
  const running = worker.run();
  return {
    env,
    fake,
    taskQueue,
    async close() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}

/** One notification, started as the notification relay starts it, answered from `script`. */
async function run(r: RecorderEnv, script: NotificationStep[]): Promise<History> {
  const input = notificationInput();
  r.fake.script(input.notificationId, script);
  await startNotificationWorkflow(r.env.client, r.taskQueue, input);
  const handle = r.env.client.workflow.getHandle<typeof notificationWorkflow>(input.notificationId);
  await handle.result();
  return handle.fetchHistory();
}

const SCENARIOS: Record<string, (r: RecorderEnv) => Promise<History>> = {
  // Sent at the first attempt.
  sent: (r) => run(r, [sent()]),
  // The transport down twice (durable waits of the jittered schedule), then sent.
  'retry-then-sent': (r) => run(r, [sendFailed(), sendFailed(), sent()]),
  // Refused for good (a 5xx to the recipient): failed at once.
  'failed-permanent': (r) => run(r, [sendFailed('SMTP 550 mailbox unavailable', true)]),
  // Nothing to send (no address): skipped.
  skipped: (r) => run(r, [skippedNotification()]),
  // Issue 48 (`firstAttemptLocal`, set by every start): attempt 1 as a local activity, sent; and a
  // first attempt that fails, the retry after the wait as a regular activity.
  'local-first-sent': (r) => run(r, [sent()]),
  'local-first-retry-then-sent': (r) => run(r, [sendFailed(), sent()]),
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv }));
