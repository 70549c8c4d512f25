import fs from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker, type LogLevel } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { DeliverWebhookInput, DeliverWebhookOutcome } from '../../activities/types';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../../workflows/webhook-delivery';

// The recorded webhook delivery (scripts/record-histories.ts, scenario retry-then-success) must replay
// against the current webhookDeliveryWorkflow: deliveries wait for hours on durable timers, so a
// change that breaks replay would break deliveries in flight. (charge-replay.test.ts replays every
// file in histories/ too; this file also checks what the history holds and that replay would notice.)

const FILE = path.join(__dirname, 'histories', 'webhookDeliveryWorkflow-retry-then-success.json');
const T = temporal.api.enums.v1.EventType;
const load = () => historyFromJSON(JSON.parse(fs.readFileSync(FILE, 'utf8')));
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');

type History = ReturnType<typeof load>;
const eventsOf = (history: History, type: temporal.api.enums.v1.EventType) => (history.events ?? []).filter((e) => e.eventType === type);
/** A Duration as historyFromJSON leaves it: seconds may be a string, not a Long (so not tsToMs). */
const durationMs = (d: { seconds?: unknown; nanos?: number | null }) => Number(String(d.seconds ?? 0)) * 1000 + Math.round((d.nanos ?? 0) / 1e6);
const decode = <V>(payload: temporal.api.common.v1.IPayload | null | undefined): V => defaultPayloadConverter.fromPayload<V>(payload!);

test('the recorded delivery is two failed attempts then a success, with the waits the activity answered', () => {
  const history = load();
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  expect(started.workflowType?.name).toBe('webhookDeliveryWorkflow');
  const input = decode<WebhookDeliveryInput>(started.input!.payloads![0]);
  expect(input.retryScheduleMs).toHaveLength(7);

  const attempts = eventsOf(history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).map((e) => decode<DeliverWebhookInput>(e.activityTaskScheduledEventAttributes!.input!.payloads![0]));
  expect(attempts.map((a) => [a.deliveryId, a.attempt])).toEqual([1, 2, 3].map((n) => [input.deliveryId, n]));
  const outcomes = eventsOf(history, T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED).map((e) => decode<DeliverWebhookOutcome>(e.activityTaskCompletedEventAttributes!.result!.payloads![0]));
  expect(outcomes.map((o) => [o.outcome, o.statusCode])).toEqual([
    ['failed', 500],
    ['failed', 503],
    ['succeeded', 200],
  ]);

  // A 500 waits the jittered delay; the 503's Retry-After (4 × the delay) is held to 2 × the delay.
  const timers = eventsOf(history, T.EVENT_TYPE_TIMER_STARTED).map((e) => durationMs(e.timerStartedEventAttributes!.startToFireTimeout!));
  expect(timers).toEqual([attempts[0].retryDelayMs, 2 * attempts[1].retryDelayMs!]);
  expect(timers).toEqual([outcomes[0].retryInMs, outcomes[1].retryInMs]);

  const completed = history.events!.at(-1)!.workflowExecutionCompletedEventAttributes!;
  expect(decode<WebhookDeliveryResult>(completed.result!.payloads![0])).toEqual({ status: 'succeeded', attempts: 3, reason: null });
});

test('it replays against the current workflow code', async () => {
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, load(), path.basename(FILE))).resolves.toBeUndefined();
});

test('the guard works: a history whose first attempt succeeded, yet waited, fails replay with DeterminismViolationError', async () => {
  const history = load();
  const firstResult = eventsOf(history, T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)[0].activityTaskCompletedEventAttributes!.result!;
  const succeeded: DeliverWebhookOutcome = { outcome: 'succeeded', statusCode: 200, reason: null, retryInMs: null, autoDisabled: false };
  firstResult.payloads = [defaultPayloadConverter.toPayload(succeeded)];
  const replay = Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'altered');
  await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
  await expect(replay).rejects.toThrow(/TimerStarted/); // the code completes where the history has a timer
});

describe('the local first attempt (issue 19, patch webhook-local-first-attempt)', () => {
  const LOCAL = path.join(__dirname, 'histories', 'webhookDeliveryWorkflow-local-first-attempt-then-retry.json');
  const loadLocal = () => historyFromJSON(JSON.parse(fs.readFileSync(LOCAL, 'utf8')));
  const markers = (history: History) => eventsOf(history, T.EVENT_TYPE_MARKER_RECORDED).map((e) => e.markerRecordedEventAttributes!.markerName);

  test('the runs recorded before it hold no patch marker; a run recorded after holds it, attempt 1 as a local activity marker and attempt 2 as an activity', () => {
    expect(markers(load())).toEqual([]);
    const history = loadLocal();
    expect(markers(history)).toEqual(['core_patch', 'core_local_activity']);
    const attempts = eventsOf(history, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).map((e) => decode<DeliverWebhookInput>(e.activityTaskScheduledEventAttributes!.input!.payloads![0]));
    expect(attempts.map((a) => a.attempt)).toEqual([2]);
    expect(eventsOf(history, T.EVENT_TYPE_TIMER_STARTED)).toHaveLength(1);
  });

  test('it replays against the current workflow code, as does the one whose first attempt succeeded', async () => {
    const bundle = await workflowBundle();
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, loadLocal(), path.basename(LOCAL))).resolves.toBeUndefined();
    const succeededFile = path.join(__dirname, 'histories', 'webhookDeliveryWorkflow-local-first-attempt.json');
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, historyFromJSON(JSON.parse(fs.readFileSync(succeededFile, 'utf8'))), 'local-succeeded')).resolves.toBeUndefined();
  });
});
