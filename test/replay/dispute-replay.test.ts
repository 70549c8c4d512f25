import fs from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type LogLevel } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { DisputeStart } from '../../src/domain/dispute';
import { codecDataConverter } from '../../src/temporal/payload-codec';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import { testPayloadCodec } from '../support/payload-codec';
import { replayBatch } from '../support/replay-batch';

// Every recorded disputeWorkflow history (scripts/record-dispute-histories.ts) must replay against the
// current workflow code. Each is replayed under its dispute's id (from its input): a dispute run
// refuses any other workflow id, as in production. The evidence text is in the submitEvidence
// update's input alone: no activity result, and no run result, holds it.

const DIR = path.join(__dirname, 'histories', 'disputeWorkflow');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
const disputeIdOf = (history: ReturnType<typeof load>) =>
  defaultPayloadConverter.fromPayload<DisputeStart>(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]).disputeId;
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');

test('the recorded scenarios are all there', () => {
  expect(files).toEqual(
    expect.arrayContaining(['won', 'lost', 'lost-by-deadline', 'decision-advanced', 'deadline-advanced', 'evidence-twice', 'not-found', 'already-resolved'].map((s) => `${s}.json`)),
  );
});

const replayed = replayBatch(async () => ({
  options: { workflowBundle: await workflowBundle(), dataConverter: codecDataConverter(testPayloadCodec()) },
  histories: files.map((file) => ({ name: file, history: load(file), workflowId: disputeIdOf(load(file)) })),
}));

test.each(files)('%s replays against the current workflow code', async (file) => {
  expect(load(file).events![0].workflowExecutionStartedEventAttributes!.workflowType?.name).toBe('disputeWorkflow');
  expect(await replayed(file)).toBeUndefined();
});

/** Each event's payloads, decoded, in history order. */
function decodedEvents(file: string): { eventType: string; decoded: string }[] {
  const json = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as { events: Array<{ eventType: string }> };
  return json.events.map((event) => ({
    eventType: event.eventType,
    decoded: [...JSON.stringify(event).matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1], 'base64').toString('utf8')).join('\n'),
  }));
}

test.each(files)('%s holds the evidence text in update inputs only', (file) => {
  const outside = decodedEvents(file).filter((e) => e.eventType !== 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED' && e.decoded.includes('recorded scenario'));
  expect(outside).toEqual([]);
});

test('the check above sees the text where it is (the accepted update of a won dispute)', () => {
  expect(decodedEvents('won.json').filter((e) => e.decoded.includes('recorded scenario: delivery receipt')).map((e) => e.eventType)).toEqual([
    'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
  ]);
});

test('the guard works: replayed under another workflow id, the run refuses at once and replay fails', async () => {
  const history = load('won.json');
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'dp_someoneelse')).rejects.toBeInstanceOf(DeterminismViolationError);
});
