import { WorkflowClient, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { RETENTION_BATCHES_PER_RUN, RETENTION_KINDS, type RetentionInput, type RetentionResult } from '../../src/domain/retention';
import { randomBase62 } from '../../src/support/new-id';
import { retentionQueue } from '../../src/temporal/retention-schedule';
import { RETENTION_INPUT_REFUSED } from '../../workflows/retention';
import { startRetentionEnv, TEST_PLAN, type RetentionTestEnv } from './support/retention-env';

// retentionWorkflow on the time-skipping test server (the worker's bundle), its two activities in
// memory (support/retention-env.ts): rows of each kind waiting past their window, deleted `batch` at
// a time as the store does.

const T = temporal.api.enums.v1.EventType;
const DAY_MS = 86_400_000;

let h: RetentionTestEnv;
beforeAll(async () => {
  h = await startRetentionEnv();
}, 120_000);
afterAll(async () => {
  await h?.close();
});
beforeEach(() => h.rows.reset());

const start = (input: RetentionInput = {}) => h.start(input);
const historyOf = async (workflowId: string, runId?: string) => (await h.env.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];

test('kind after kind, batch after batch until one comes back short, a pause timer between two batches; the plan read once; counts in the result', async () => {
  h.rows.left = { webhook_deliveries: 7, idempotency_keys: 3, rate_limits: 0, notifications: 2 };
  const handle = await start();
  const result = (await handle.result()) as RetentionResult;

  expect(result).toEqual({
    plan: h.rows.plan,
    deleted: { webhook_deliveries: 7, webhook_attempts: 14, idempotency_keys: 3, rate_limits: 0, notifications: 2, notification_attempts: 2 },
    // deliveries 3 + 3 + 1, keys 3 + 0, counters 0, notifications 2
    batches: 7,
    continuations: 0,
  });
  expect(h.rows.plans).toBe(1);
  expect(h.rows.requests.map((r) => `${r.kind}:${r.batch}:${r.windowMs}`)).toEqual([
    ...Array(3).fill(`webhook_deliveries:3:${90 * DAY_MS}`),
    ...Array(2).fill(`idempotency_keys:3:${DAY_MS}`),
    `rate_limits:3:3600000`,
    `notifications:3:${90 * DAY_MS}`,
  ]);
  expect(Object.values(h.rows.left).every((n) => n === 0)).toBe(true);
  // A timer after each full batch (deliveries 2, keys 1), of the plan's pause.
  const timers = (await historyOf(handle.workflowId)).filter((e) => e.eventType === T.EVENT_TYPE_TIMER_STARTED);
  expect(timers).toHaveLength(3);
  for (const t of timers) expect(Number(t.timerStartedEventAttributes!.startToFireTimeout!.seconds)).toBe(60);
});

test('nothing past any window: one batch per kind, no timer', async () => {
  const handle = await start();
  const result = (await handle.result()) as RetentionResult;
  expect(result.batches).toBe(RETENTION_KINDS.length);
  expect(Object.values(result.deleted).every((n) => n === 0)).toBe(true);
  expect((await historyOf(handle.workflowId)).some((e) => e.eventType === T.EVENT_TYPE_TIMER_STARTED)).toBe(false);
});

test(`a backlog continues as new after ${RETENTION_BATCHES_PER_RUN} batches with its progress and plan; the totals add up`, async () => {
  h.rows.plan = { ...h.rows.plan, batch: 1, pauseMs: 0 };
  try {
    h.rows.left = { webhook_deliveries: 2, idempotency_keys: RETENTION_BATCHES_PER_RUN + 3, rate_limits: 0, notifications: 0 };
    const handle = await start();
    const result = (await handle.result()) as RetentionResult;
    expect(result.continuations).toBe(1);
    expect(result.deleted).toMatchObject({ webhook_deliveries: 2, idempotency_keys: RETENTION_BATCHES_PER_RUN + 3 });
    // 3 for deliveries (1, 1, 0), keys until a short one, 1 each for the last two kinds.
    expect(result.batches).toBe(3 + RETENTION_BATCHES_PER_RUN + 4 + 2);
    expect(h.rows.plans).toBe(1); // the continued run carries the plan
    const first = await historyOf(handle.workflowId, handle.firstExecutionRunId);
    expect(first.at(-1)?.eventType).toBe(T.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
  } finally {
    h.rows.plan = TEST_PLAN;
  }
}, 120_000);

test('a batch that fails (database unreachable) is retried; nothing is counted twice', async () => {
  h.rows.left = { webhook_deliveries: 2, idempotency_keys: 0, rate_limits: 0, notifications: 0 };
  h.rows.failures = 2;
  const result = (await (await start()).result()) as RetentionResult;
  expect(result.deleted.webhook_deliveries).toBe(2);
  expect(result.batches).toBe(4);
});

test.each([
  [{ kindIndex: 9 }, 'kindIndex must name a kind'],
  [{ batches: -1 }, 'batches must be a non-negative integer'],
  [{ plan: { windowsMs: { webhook_deliveries: 1 }, batch: 10, pauseMs: 0 } }, 'plan.windowsMs must give every kind a positive window'],
  [{ plan: { windowsMs: {}, batch: 0, pauseMs: 0 } }, 'plan.batch must be a positive integer'],
])('malformed input %j is refused at once, nothing deleted', async (input, message) => {
  const plain = new WorkflowClient({ connection: h.env.connection, namespace: h.env.namespace ?? 'default' });
  const handle = await plain.start('retentionWorkflow', { taskQueue: retentionQueue(h.taskQueue), workflowId: `retention-bad-${randomBase62(10)}`, args: [input as RetentionInput] });
  const error = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
  expect(cause.type).toBe(RETENTION_INPUT_REFUSED);
  expect(cause.message).toBe(`retention run refused: ${message}`);
  expect(h.rows.requests).toEqual([]);
});
