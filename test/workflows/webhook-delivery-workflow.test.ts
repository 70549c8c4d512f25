import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { tsToMs } from '@temporalio/common/lib/time';
import type { DeliverWebhookOutcome } from '../../activities/types';
import { SA } from '../../src/domain/search-attributes';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, RETRY_JITTER } from '../../src/domain/webhook-retry';
import { newId } from '../../src/support/new-id';
import { startDeliveryWorkflow } from '../../src/temporal/delivery-start';
import { webhookTaskQueueFor } from '../../src/temporal/task-queues';
import { workflowBundle } from '../../workers/workflow-bundle';
import { deliveryStateQuery, RESUME_AFTER_CLOSED_RUN_PATCH, type WebhookDeliveryInput, type webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { deliveryInput, failed, FakeWebhookReceiver, infrastructureError, skipped, succeeded, type Script } from './support/fake-webhook-activities';
import { timelineOf } from './support/timeline';
import { startDeliveryQueueWorker, type TimeSkippingWorkers } from './support/time-skipping-workers';

// webhookDeliveryWorkflow on the time-skipping test server: the real workflow bundle, the
// deliverWebhook activity replaced by a scripted receiver. Waits are read from the run's history (the
// durable timers the workflow set), in workflow time; nothing depends on wall time.

type History = temporal.api.history.v1.IHistory;
const T = temporal.api.enums.v1.EventType;
const SCHEDULE = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
const HOUR = 3_600_000;

let ts: TimeSkippingWorkers;
let env: TestWorkflowEnvironment;
let taskQueue: string;
const fake = new FakeWebhookReceiver();

beforeAll(async () => {
  ts = await startDeliveryQueueWorker('webhooks', fake.activities);
  ({ env, taskQueue } = ts);
});

afterAll(() => ts?.close());


/** Starts a delivery exactly as the outbox relay does (src/temporal/delivery-start.ts). */
async function start(script: Script): Promise<{ input: WebhookDeliveryInput; handle: WorkflowHandle<typeof webhookDeliveryWorkflow> }> {
  const input = deliveryInput(newId('delivery'));
  fake.script(input.deliveryId, script);
  await startDeliveryWorkflow(env.client, taskQueue, input);
  return { input, handle: env.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(input.deliveryId) };
}

/** Runs a delivery to its end (skipping time) and collects what happened. */
async function deliver(script: Script) {
  const { input, handle } = await start(script);
  const result = await handle.result();
  const history = await handle.fetchHistory();
  const calls = fake.callsFor(input.deliveryId);
  return { input, handle, result, history, calls, outcomes: fake.outcomesFor(input.deliveryId), timeline: timelineOf(history) };
}

const eventsOf = (history: History, type: temporal.api.enums.v1.EventType) => (history.events ?? []).filter((e) => e.eventType === type);

/** Workflow time from start to close, read from the history. */
function runTimeMs(history: History): number {
  const events = history.events ?? [];
  return tsToMs(events.at(-1)!.eventTime!) - tsToMs(events[0].eventTime!);
}

/** Every retryDelayMs the workflow passed is the schedule entry for that attempt, jittered by at most ±20 %. */
function expectJitteredSchedule(retryDelays: Array<number | null>): void {
  retryDelays.forEach((delay, i) => {
    expect(delay).not.toBeNull();
    expect(Number.isInteger(delay)).toBe(true);
    expect(delay!).toBeGreaterThanOrEqual(Math.floor(SCHEDULE[i] * (1 - RETRY_JITTER)));
    expect(delay!).toBeLessThanOrEqual(Math.ceil(SCHEDULE[i] * (1 + RETRY_JITTER)));
  });
}

/** Each durable timer waits exactly the retryInMs the preceding failed attempt answered, and never fires early. */
function expectTimersFollowOutcomes(timeline: ReturnType<typeof timelineOf>, outcomes: DeliverWebhookOutcome[]): void {
  const failures = outcomes.filter((o) => o.outcome === 'failed' && o.retryInMs !== null);
  expect(timeline.timers.map((t) => t.durationMs)).toEqual(failures.map((o) => o.retryInMs));
  for (const timer of timeline.timers) expect(timer.firedAt! - timer.startedAt).toBeGreaterThanOrEqual(timer.durationMs);
}

describe('the retry schedule', () => {
  test('a receiver failing every time: 8 attempts (1 + 7 retries), each wait the jittered schedule delay, about 27.6 h in all', async () => {
    expect(SCHEDULE).toHaveLength(7);
    const r = await deliver((input) => failed(500)(input));

    expect(r.result).toEqual({ status: 'failed', attempts: 8, reason: 'HTTP 500' });
    expect(r.calls.map((c) => c.input.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.calls.every((c) => c.activityAttempt === 1)).toBe(true); // no Temporal retries: each is its own activity
    expect(r.calls.at(-1)!.input.retryDelayMs).toBeNull();
    expect(r.outcomes.at(-1)!.retryInMs).toBeNull();

    const given = r.calls.slice(0, 7).map((c) => c.input.retryDelayMs);
    expectJitteredSchedule(given);
    expect(r.outcomes.slice(0, 7).map((o) => o.retryInMs)).toEqual(given); // the fake echoes what it was given
    expect(r.timeline.timers).toHaveLength(7);
    expectTimersFollowOutcomes(r.timeline, r.outcomes);

    // attemptedAtMs is workflow time: each attempt comes at least its wait after the previous one.
    for (let i = 1; i < r.calls.length; i++) {
      expect(r.calls[i].input.attemptedAtMs - r.calls[i - 1].input.attemptedAtMs).toBeGreaterThanOrEqual(r.timeline.timers[i - 1].durationMs);
    }

    // The schedule sums to 27 h 35 min 5 s; with ±20 % jitter the run takes that ± 20 % of workflow time.
    const scheduled = SCHEDULE.reduce((a, b) => a + b, 0);
    expect(scheduled / HOUR).toBeCloseTo(27.585, 3);
    const waited = r.timeline.timers.reduce((a, t) => a + t.durationMs, 0);
    const total = runTimeMs(r.history);
    expect(total).toBeGreaterThanOrEqual(waited);
    expect(total - waited).toBeLessThan(60_000); // the rest is the attempts themselves
    expect(total).toBeGreaterThanOrEqual(0.8 * scheduled);
    expect(total).toBeLessThanOrEqual(1.2 * scheduled + 60_000);
  });

  test('success on attempt 3: three calls, two waits, status succeeded', async () => {
    const r = await deliver([failed(500), failed(null), succeeded()]);
    expect(r.result).toEqual({ status: 'succeeded', attempts: 3, reason: null });
    expect(r.calls.map((c) => c.input.attempt)).toEqual([1, 2, 3]);
    expectJitteredSchedule(r.calls.map((c) => c.input.retryDelayMs));
    expect(r.timeline.timers).toHaveLength(2);
    expectTimersFollowOutcomes(r.timeline, r.outcomes);
    expect(eventsOf(r.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(3);
  });

  test('started as production starts it: workflow id = delivery id, MerchantId and Environment search attributes; a second start does nothing', async () => {
    const r = await deliver([succeeded(204)]);
    expect(r.result).toEqual({ status: 'succeeded', attempts: 1, reason: null });
    expect(r.timeline.timers).toEqual([]);
    const described = await r.handle.describe();
    expect(described.workflowId).toBe(r.input.deliveryId);
    expect(described.type).toBe('webhookDeliveryWorkflow');
    expect([described.typedSearchAttributes.get(SA.MerchantId), described.typedSearchAttributes.get(SA.Environment)]).toEqual(['mer_test', 'sandbox']);

    await startDeliveryWorkflow(env.client, taskQueue, r.input); // REJECT_DUPLICATE: swallowed, no new run
    expect((await r.handle.describe()).runId).toBe(described.runId);
    expect(fake.callsFor(r.input.deliveryId)).toHaveLength(1);
  });

  test('skipped on attempt 2 (endpoint disabled): status skipped, no further attempt', async () => {
    const r = await deliver([failed(502), skipped('endpoint disabled')]);
    expect(r.result).toEqual({ status: 'skipped', attempts: 2, reason: 'endpoint disabled' });
    expect(r.calls.map((c) => c.input.attempt)).toEqual([1, 2]);
    expect(r.timeline.timers).toHaveLength(1);
    expectTimersFollowOutcomes(r.timeline, r.outcomes);
    expect(eventsOf(r.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(2);
  });
});

describe('Retry-After (nextRetryDelay applied by the activity, the workflow waits what the activity says)', () => {
  test.each<[string, number, (given: number) => number, (given: number) => number]>([
    ['503 with Retry-After 4 × delay: clamped to 2 × delay', 503, (g) => 4 * g, (g) => 2 * g],
    ['503 with Retry-After 1.5 × delay: honoured', 503, (g) => Math.round(1.5 * g), (g) => Math.round(1.5 * g)],
    ['429 with Retry-After below the delay: the delay', 429, (g) => Math.floor(g / 2), (g) => g],
    ['500 with Retry-After 2 × delay: ignored (only 429 and 503 honour it)', 500, (g) => 2 * g, (g) => g],
  ])('%s', async (_, status, retryAfter, expected) => {
    const r = await deliver([failed(status, retryAfter), succeeded()]);
    expect(r.result).toEqual({ status: 'succeeded', attempts: 2, reason: null });
    const given = r.calls[0].input.retryDelayMs!;
    expectJitteredSchedule([given]);
    expect(r.outcomes[0].retryInMs).toBe(expected(given));
    expect(r.timeline.timers.map((t) => t.durationMs)).toEqual([expected(given)]);
    expect(r.calls[1].input.attemptedAtMs - r.calls[0].input.attemptedAtMs).toBeGreaterThanOrEqual(expected(given));
  });
});

describe('infrastructure failures', () => {
  test('a plain Error from the activity is retried by Temporal as the same delivery attempt', async () => {
    const r = await deliver([infrastructureError(), succeeded()]);
    expect(r.result).toEqual({ status: 'succeeded', attempts: 1, reason: null });
    expect(r.calls).toHaveLength(2);
    expect(r.calls.map((c) => c.input.attempt)).toEqual([1, 1]); // not advanced by the retry
    expect(r.calls.map((c) => c.activityAttempt)).toEqual([1, 2]); // Temporal's retry
    expect(r.calls[1].input).toEqual(r.calls[0].input); // same activity, same input
    expect(r.calls[0].result).toBeInstanceOf(Error);
    expect(eventsOf(r.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(1);
    expect(r.timeline.timers).toEqual([]); // no delivery retry wait
  });
});

describe('deliveryState query', () => {
  test('during the retry wait it shows the attempt, its outcome and nextAttemptAt; after the end, the last attempt', async () => {
    const { input, handle } = await start([failed(503), succeeded()]);
    // Time skipping is locked until someone waits on the result: the run sits in its first retry wait.
    let state = await handle.query(deliveryStateQuery);
    for (let i = 0; i < 200 && state.nextAttemptAt === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = await handle.query(deliveryStateQuery);
    }
    expect(fake.callsFor(input.deliveryId)).toHaveLength(1);
    const [first] = fake.outcomesFor(input.deliveryId);
    expect(state).toEqual({ attempt: 1, last: first, nextAttemptAt: expect.any(String) });
    expect(first).toMatchObject({ outcome: 'failed', statusCode: 503 });

    const waiting = timelineOf(await handle.fetchHistory()).timers;
    expect(waiting).toHaveLength(1);
    expect(waiting[0].firedAt).toBeNull();
    // nextAttemptAt = the workflow clock of the task that set the timer + the wait.
    const aimedFrom = Date.parse(state.nextAttemptAt!) - first.retryInMs!;
    expect(aimedFrom).toBeGreaterThanOrEqual(waiting[0].taskStartedAt);
    expect(aimedFrom).toBeLessThanOrEqual(waiting[0].startedAt);

    expect(await handle.result()).toEqual({ status: 'succeeded', attempts: 2, reason: null });
    expect(fake.callsFor(input.deliveryId)[1].input.attemptedAtMs).toBeGreaterThanOrEqual(Date.parse(state.nextAttemptAt!));
    expect(await handle.query(deliveryStateQuery)).toEqual({ attempt: 2, last: succeeded(), nextAttemptAt: null });
  });
});

describe('determinism', () => {
  test('each run draws its own jitter (Math.random seeded per run), and each history replays', async () => {
    const script = (): Script => [failed(500), failed(500), failed(500), succeeded()];
    const a = await deliver(script());
    const b = await deliver(script());
    const delays = (calls: typeof a.calls) => calls.map((c) => c.input.retryDelayMs);
    expectJitteredSchedule(delays(a.calls).slice(0, 3));
    expectJitteredSchedule(delays(b.calls).slice(0, 3));
    expect(delays(a.calls)).not.toEqual(delays(b.calls));
    expect(a.timeline.timers.map((t) => t.durationMs)).not.toEqual(b.timeline.timers.map((t) => t.durationMs));

    for (const run of [a, b]) {
      const fetched = await run.handle.fetchHistory();
      await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, fetched, run.input.deliveryId)).resolves.toBeUndefined();
    }
  });
});

describe('the first attempt as a local activity (issue 19, patch webhook-local-first-attempt)', () => {
  /** Starts with `localFirstAttempt`, as the relay does for an endpoint whose timeout allows it. */
  async function deliverLocal(script: Script) {
    const input = { ...deliveryInput(newId('delivery')), localFirstAttempt: true };
    fake.script(input.deliveryId, script);
    await startDeliveryWorkflow(env.client, taskQueue, input);
    const handle = env.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(input.deliveryId);
    const result = await handle.result();
    const history = await handle.fetchHistory();
    return { input, result, history, calls: fake.callsFor(input.deliveryId) };
  }
  const markers = (history: History) => eventsOf(history, T.EVENT_TYPE_MARKER_RECORDED).map((e) => e.markerRecordedEventAttributes!.markerName);

  test('a 2xx on attempt 1: sent from the workflow task (a local activity marker), no activity task scheduled', async () => {
    const r = await deliverLocal([succeeded()]);
    expect(r.result).toEqual({ status: 'succeeded', attempts: 1, reason: null });
    expect(r.calls.map((c) => c.input.attempt)).toEqual([1]);
    expect(eventsOf(r.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(0);
    // Issue 48: the input decides (`firstAttemptLocal`, set by startDeliveryWorkflow): no patch marker, only the local activity's own.
    expect(r.input.localFirstAttempt).toBe(true);
    expect(markers(r.history)).toEqual(['core_local_activity']);
  });

  test('a run started before issue 48 (localFirstAttempt without firstAttemptLocal) asks the patch, as recorded', async () => {
    const input = { ...deliveryInput(newId('delivery')), localFirstAttempt: true };
    fake.script(input.deliveryId, [succeeded()]);
    const handle = await env.client.workflow.start<typeof webhookDeliveryWorkflow>('webhookDeliveryWorkflow', { workflowId: input.deliveryId, taskQueue: webhookTaskQueueFor(taskQueue, input.environment), args: [input] });
    expect(await handle.result()).toEqual({ status: 'succeeded', attempts: 1, reason: null });
    expect(markers(await handle.fetchHistory())).toEqual(['core_patch', 'core_local_activity']);
  });

  test('attempt 1 failed (a 500): the wait, then attempt 2 as a regular activity', async () => {
    const r = await deliverLocal([failed(500), succeeded()]);
    expect(r.result).toEqual({ status: 'succeeded', attempts: 2, reason: null });
    expect(r.calls.map((c) => c.input.attempt)).toEqual([1, 2]);
    expect(markers(r.history)).toEqual(['core_local_activity']);
    expect(timelineOf(r.history).timers).toHaveLength(1);
    const scheduled = eventsOf(r.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
    expect(scheduled).toHaveLength(1);
  });

  test('the local attempt throws (the merchant busy, the database down): the same attempt goes to the regular activity, no wait', async () => {
    const r = await deliverLocal([infrastructureError(), succeeded()]);
    expect(r.result).toEqual({ status: 'succeeded', attempts: 1, reason: null });
    expect(r.calls.map((c) => c.input.attempt)).toEqual([1, 1]);
    expect(r.calls[1].input).toEqual(r.calls[0].input); // same attempt, same input
    expect(eventsOf(r.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(1);
    expect(timelineOf(r.history).timers).toEqual([]);
  });

  test('without localFirstAttempt (runs started before issue 19, or a slow endpoint) every attempt is an activity and no patch marker is written', async () => {
    const r = await deliver([succeeded()]);
    expect(eventsOf(r.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(1);
    expect(markers(r.history)).toEqual([]);
  });

  test('it replays', async () => {
    const r = await deliverLocal([failed(500), succeeded()]);
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, r.history, r.input.deliveryId)).resolves.toBeUndefined();
  });
});

test('a run that takes over a closed run (issue 32, firstAttempt): its first attempt is the next one, at once, with the rest of the schedule; the patch is marked', async () => {
  const input = { ...deliveryInput(newId('delivery')), firstAttempt: 3 };
  fake.script(input.deliveryId, [failed(500), succeeded()]);
  await startDeliveryWorkflow(env.client, taskQueue, input);
  const handle = env.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(input.deliveryId);
  expect(await handle.result()).toEqual({ status: 'succeeded', attempts: 4, reason: null });
  const calls = fake.callsFor(input.deliveryId).map((c) => c.input);
  expect(calls.map((c) => c.attempt)).toEqual([3, 4]);
  // Attempt 3 is told the schedule's third delay (±jitter), not the first's.
  expect(calls[0].retryDelayMs).toBeGreaterThanOrEqual(SCHEDULE[2] * (1 - RETRY_JITTER));
  expect(calls[0].retryDelayMs).toBeLessThanOrEqual(SCHEDULE[2] * (1 + RETRY_JITTER));
  const history = await handle.fetchHistory();
  const patches = eventsOf(history, T.EVENT_TYPE_MARKER_RECORDED)
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
    .flatMap((e) => Object.values(e.markerRecordedEventAttributes!.details ?? {}).flatMap((p) => p.payloads ?? []))
    .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
    .join(' ');
  expect(patches).toContain(RESUME_AFTER_CLOSED_RUN_PATCH);
  // No timer before attempt 3: it runs at once.
  expect(eventsOf(history, T.EVENT_TYPE_TIMER_STARTED)).toHaveLength(1);
});
