import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { tsToMs } from '@temporalio/common/lib/time';
import type { SendNotificationInput, SendNotificationOutcome } from '../../activities/notification-types';
import { SA } from '../../src/domain/search-attributes';
import { RETRY_JITTER } from '../../src/domain/webhook-retry';
import { startNotificationWorkflow } from '../../src/temporal/notification-start';
import { webhookTaskQueueFor } from '../../src/temporal/task-queues';
import { notificationStateQuery, type notificationWorkflow } from '../../workflows/notification';
import { FakeNotificationSender, notificationInput, sendFailed, sent, skippedNotification, type NotificationStep } from './support/fake-notification-activities';
import { timelineOf } from './support/timeline';
import { startDeliveryQueueWorker, type TimeSkippingWorkers } from './support/time-skipping-workers';

// notificationWorkflow on the time-skipping test server: the real workflow bundle, the sendNotification
// activity replaced by a scripted sender. Waits are read from the run's history (its durable timers),
// in workflow time.

type History = temporal.api.history.v1.IHistory;
const T = temporal.api.enums.v1.EventType;
const HOUR = 3_600_000;

let ts: TimeSkippingWorkers;
let env: TestWorkflowEnvironment;
let taskQueue: string;
const fake = new FakeNotificationSender();

beforeAll(async () => {
  ts = await startDeliveryQueueWorker('notifications', fake.activities);
  ({ env, taskQueue } = ts);
});

afterAll(() => ts?.close());

/** Starts a notification as the relay does (src/temporal/notification-start.ts) and runs it to its end. */
async function notify(script: NotificationStep[] | ((input: SendNotificationInput) => SendNotificationOutcome | Error)) {
  const input = notificationInput();
  fake.script(input.notificationId, script);
  await startNotificationWorkflow(env.client, taskQueue, input);
  const handle = env.client.workflow.getHandle<typeof notificationWorkflow>(input.notificationId);
  const result = await handle.result();
  const history = await handle.fetchHistory();
  return { input, handle, result, history, calls: fake.callsFor(input.notificationId), timeline: timelineOf(history) };
}

const eventsOf = (history: History, type: temporal.api.enums.v1.EventType) => (history.events ?? []).filter((e) => e.eventType === type);
const runTimeMs = (history: History) => tsToMs(history.events!.at(-1)!.eventTime!) - tsToMs(history.events![0].eventTime!);

function expectJittered(delays: Array<number | null>, schedule: number[]): void {
  delays.forEach((delay, i) => {
    expect(delay).not.toBeNull();
    expect(delay!).toBeGreaterThanOrEqual(Math.floor(schedule[i] * (1 - RETRY_JITTER)));
    expect(delay!).toBeLessThanOrEqual(Math.ceil(schedule[i] * (1 + RETRY_JITTER)));
  });
}

test('sent at the first attempt: one activity, no wait; started as the relay starts it (id, queue, search attributes), a second start does nothing', async () => {
  const r = await notify([sent()]);
  expect(r.result).toEqual({ status: 'sent', attempts: 1, reason: null });
  expect(r.calls.map((c) => c.input.attempt)).toEqual([1]);
  expect(r.timeline.timers).toEqual([]);
  const described = await r.handle.describe();
  expect(described).toMatchObject({ workflowId: r.input.notificationId, type: 'notificationWorkflow', taskQueue: webhookTaskQueueFor(taskQueue, 'sandbox') });
  expect([described.typedSearchAttributes.get(SA.MerchantId), described.typedSearchAttributes.get(SA.Environment)]).toEqual(['mer_test', 'sandbox']);
  expect(await startNotificationWorkflow(env.client, taskQueue, r.input)).toBe('already_started');
  expect(fake.callsFor(r.input.notificationId)).toHaveLength(1);
});

test('SMTP down twice, then up: three attempts, each wait the jittered schedule delay, sent once', async () => {
  const r = await notify([sendFailed(), sendFailed(), sent()]);
  expect(r.result).toEqual({ status: 'sent', attempts: 3, reason: null });
  expect(r.calls.map((c) => [c.input.attempt, c.activityAttempt])).toEqual([[1, 1], [2, 1], [3, 1]]);
  const given = r.calls.slice(0, 2).map((c) => c.input.retryDelayMs);
  expectJittered(given, r.input.retryScheduleMs);
  expect(r.timeline.timers.map((t) => t.durationMs)).toEqual(given);
  for (let i = 1; i < r.calls.length; i++) expect(r.calls[i].input.attemptedAtMs - r.calls[i - 1].input.attemptedAtMs).toBeGreaterThanOrEqual(given[i - 1]!);
});

test('a transport down for good: bounded, 1 + 5 attempts over the default schedule (about 7 h 11 min), then failed with the last reason', async () => {
  const r = await notify((input) => sendFailed(`down at attempt ${input.attempt}`)(input));
  expect(r.result).toEqual({ status: 'failed', attempts: 6, reason: 'down at attempt 6' });
  expect(r.calls.map((c) => c.input.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(r.calls.at(-1)!.input.retryDelayMs).toBeNull();
  expectJittered(r.calls.slice(0, 5).map((c) => c.input.retryDelayMs), r.input.retryScheduleMs);
  expect(r.timeline.timers).toHaveLength(5);
  const scheduled = r.input.retryScheduleMs.reduce((a, b) => a + b, 0);
  expect(scheduled / HOUR).toBeCloseTo(7.186, 3);
  const total = runTimeMs(r.history);
  expect(total).toBeGreaterThanOrEqual(0.8 * scheduled);
  expect(total).toBeLessThanOrEqual(1.2 * scheduled + 60_000);
});

test('a permanent refusal (e.g. 550 no such mailbox): failed at once, no retry', async () => {
  const r = await notify([sendFailed('SMTP 550 mailbox unavailable', true)]);
  expect(r.result).toEqual({ status: 'failed', attempts: 1, reason: 'SMTP 550 mailbox unavailable' });
  expect(r.timeline.timers).toEqual([]);
});

test('nothing to send (the merchant has no email): skipped at once, no retry', async () => {
  const r = await notify([skippedNotification()]);
  expect(r.result).toEqual({ status: 'skipped', attempts: 1, reason: 'the merchant has no notification email' });
  expect(r.timeline.timers).toEqual([]);
});

test('an infrastructure error (the database down) is retried by Temporal as the same attempt, not counted', async () => {
  // Attempt 1 is local (issue 48); its error hands the same attempt to the activity, whose retry runs it again.
  const r = await notify([new Error('database unavailable'), new Error('database unavailable'), sent()]);
  expect(r.result).toEqual({ status: 'sent', attempts: 1, reason: null });
  expect(r.calls.map((c) => [c.input.attempt, c.activityAttempt])).toEqual([[1, 1], [1, 1], [1, 2]]);
  expect(r.calls[1].input).toEqual(r.calls[0].input);
  expect(r.calls[2].input).toEqual(r.calls[0].input);
  expect(eventsOf(r.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(1);
  expect(r.timeline.timers).toEqual([]);
});

test('issue 48: attempt 1 runs as a local activity (no activity task through the server); a failed send waits, then attempt 2 is an activity', async () => {
  const ok = await notify([sent()]);
  expect(ok.input).not.toHaveProperty('firstAttemptLocal'); // the start sets it, not the relay's input
  expect(eventsOf(ok.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(0);
  expect(eventsOf(ok.history, T.EVENT_TYPE_MARKER_RECORDED).map((e) => e.markerRecordedEventAttributes!.markerName)).toEqual(['core_local_activity']);
  const retried = await notify([sendFailed('SMTP ECONNREFUSED'), sent()]);
  expect(retried.result).toEqual({ status: 'sent', attempts: 2, reason: null });
  expect(retried.calls.map((c) => c.input.attempt)).toEqual([1, 2]);
  expect(retried.timeline.timers).toHaveLength(1);
  expect(eventsOf(retried.history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(1);
});

test('a run started before issue 48 (no firstAttemptLocal) sends attempt 1 as an activity, as recorded', async () => {
  const input = notificationInput();
  fake.script(input.notificationId, [sent()]);
  const handle = await env.client.workflow.start<typeof notificationWorkflow>('notificationWorkflow', { workflowId: input.notificationId, taskQueue: webhookTaskQueueFor(taskQueue, input.environment), args: [input] });
  expect(await handle.result()).toEqual({ status: 'sent', attempts: 1, reason: null });
  expect(eventsOf(await handle.fetchHistory(), T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toHaveLength(1);
});

test('notificationState during the retry wait: the attempt, its outcome and when the next one comes', async () => {
  const input = notificationInput();
  fake.script(input.notificationId, [sendFailed('SMTP ECONNREFUSED'), sent()]);
  await startNotificationWorkflow(env.client, taskQueue, input);
  const handle = env.client.workflow.getHandle<typeof notificationWorkflow>(input.notificationId);
  let state = await handle.query(notificationStateQuery);
  for (let i = 0; state.nextAttemptAt === null && i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    state = await handle.query(notificationStateQuery);
  }
  expect(state).toMatchObject({ attempt: 1, last: { outcome: 'failed', reason: 'SMTP ECONNREFUSED' } });
  expect(Date.parse(state.nextAttemptAt!)).toBeGreaterThan(0);
  expect(await handle.result()).toEqual({ status: 'sent', attempts: 2, reason: null });
  expect(await handle.query(notificationStateQuery)).toMatchObject({ attempt: 2, last: { outcome: 'sent' }, nextAttemptAt: null });
});
