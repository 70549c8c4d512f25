import fs from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker, type LogLevel } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { SendNotificationOutcome } from '../../activities/notification-types';
import { codecDataConverter } from '../../src/temporal/payload-codec';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import type { NotificationInput } from '../../workflows/notification';
import { testPayloadCodec } from '../support/payload-codec';
import { replayBatch } from '../support/replay-batch';

// Every recorded notificationWorkflow history (scripts/record-notification-histories.ts) must replay
// against the current workflow code: a notification waits on durable timers for hours, so a change
// that breaks replay would break notifications in flight. No history holds an address or a message.

const DIR = path.join(__dirname, 'histories', 'notificationWorkflow');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
type History = ReturnType<typeof load>;
const T = temporal.api.enums.v1.EventType;
const inputOf = (history: History) => defaultPayloadConverter.fromPayload<NotificationInput>(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]);
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');

test('the recorded scenarios are all there', () => {
  // Issue 48 added the local first attempt (`firstAttemptLocal`): local-first-*.
  expect(files).toEqual(['failed-permanent.json', 'local-first-retry-then-sent.json', 'local-first-sent.json', 'retry-then-sent.json', 'sent.json', 'skipped.json']);
});

const replayed = replayBatch(async () => ({
  options: { workflowBundle: await workflowBundle(), dataConverter: codecDataConverter(testPayloadCodec()) },
  histories: files.map((file) => ({ name: file, history: load(file), workflowId: inputOf(load(file)).notificationId })),
}));

test.each(files)('%s replays against the current workflow code', async (file) => {
  const history = load(file);
  expect(history.events![0].workflowExecutionStartedEventAttributes!.workflowType?.name).toBe('notificationWorkflow');
  expect(inputOf(history).notificationId).toMatch(/^ntf_/);
  expect(await replayed(file)).toBeUndefined();
});

test.each(files)('%s holds no address and no message text', (file) => {
  const text = fs.readFileSync(path.join(DIR, file), 'utf8');
  const decoded = [...text.matchAll(/"data": "([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1], 'base64').toString('utf8')).join('\n');
  expect(decoded).not.toMatch(/@|"\+?\d{9,15}"|Receipt|TEST MODE/);
});

test('the guard works: a history whose first attempt was sent, yet waited, fails replay', async () => {
  const history = load('retry-then-sent.json');
  const first = history.events!.find((e) => e.eventType === T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)!.activityTaskCompletedEventAttributes!.result!;
  const sentAtOnce: SendNotificationOutcome = { outcome: 'sent', reason: null, retryInMs: null, providerMessageId: '250 OK' };
  first.payloads = [defaultPayloadConverter.toPayload(sentAtOnce)];
  const replay = Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'altered');
  await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
});
