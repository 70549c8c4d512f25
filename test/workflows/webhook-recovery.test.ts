import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { WebhookRecoveryResult } from '../../src/domain/webhook-recovery';
import { WEBHOOK_RECOVERY_INPUT_REFUSED } from '../../workflows/webhook-recovery';
import { startRecoveryEnv, type RecoveryTestEnv } from './support/webhook-recovery-env';

// webhookRecoveryWorkflow on the time-skipping test server (the worker's bundle) with its page step
// in memory (support/webhook-recovery-env.ts): pages until the range is walked, continue-as-new after
// pagesPerRun pages with the cursor and counts, a page repeated after its commit queues nothing twice.

const T = temporal.api.enums.v1.EventType;
let h: RecoveryTestEnv;
beforeAll(async () => {
  h = await startRecoveryEnv();
}, 120_000);
afterAll(async () => {
  await h?.close();
});

test('pages through the candidates in order, continues as new after pagesPerRun pages, and queues each once even when a page is repeated', async () => {
  const candidates = Array.from({ length: 25 }, (_, i) => 3 * i + 2); // 25 of 80 events
  h.recovery.reset(80, candidates);
  h.recovery.failures = 1;
  const input = h.input({ limits: { pageSize: 4, pagesPerRun: 3 } });
  const handle = await h.start(input);
  const result = (await h.env.client.workflow.getHandle(input.recoveryId).result()) as WebhookRecoveryResult;
  // 7 pages (4 × 6 + 1), one repeated after its commit (answered with its range, nothing queued twice).
  expect(result).toEqual({ recoveryId: input.recoveryId, pages: 7, queued: 25, continuations: 2, done: true });
  expect([...h.recovery.queued]).toEqual(candidates);
  expect(h.recovery.requests.map((r) => r.after)).toEqual([null, null, 11, 23, 35, 47, 59, 71]);
  expect(h.recovery.requests.every((r) => r.limit === 4 && r.recoveryId === input.recoveryId && r.environment === 'sandbox' && r.baseQueue === input.baseQueue)).toBe(true);
  const first = (await h.env.client.workflow.getHandle(input.recoveryId, handle.firstExecutionRunId).fetchHistory()).events ?? [];
  expect(first.filter((e) => e.eventType === T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(3);
  expect(first[first.length - 1].eventType).toBe(T.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
});

test('nothing to resend: one page, done', async () => {
  h.recovery.reset(10, []);
  const input = h.input();
  await h.start(input);
  expect(await h.env.client.workflow.getHandle(input.recoveryId).result()).toEqual({ recoveryId: input.recoveryId, pages: 1, queued: 0, continuations: 0, done: true });
  expect(h.recovery.requests).toHaveLength(1);
});

test('malformed input is refused at once, nothing read', async () => {
  h.recovery.reset(10, [1]);
  const input = h.input({ baseQueue: '' });
  const handle = await h.start(input);
  const error = await handle.result().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(((error as WorkflowFailedError).cause as ApplicationFailure).type).toBe(WEBHOOK_RECOVERY_INPUT_REFUSED);
  expect(h.recovery.requests).toHaveLength(0);
});
