import fs from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { Worker, type LogLevel } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { SettlementStart } from '../../src/domain/settlement-start';
import { codecDataConverter } from '../../src/temporal/payload-codec';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import { testPayloadCodec } from '../support/payload-codec';
import { FAKE_ACCOUNT_NUMBER } from '../workflows/support/settlement-env';
import { replayBatch } from '../support/replay-batch';

// Every recorded settlementWorkflow history (scripts/record-settlement-histories.ts) must replay
// against the current workflow code. Each is replayed under its settlement's id (from its input): a
// batch refuses any other workflow id, as in production. No history may hold the destination account.

const DIR = path.join(__dirname, 'histories', 'settlementWorkflow');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
const settlementIdOf = (history: ReturnType<typeof load>) =>
  defaultPayloadConverter.fromPayload<SettlementStart>(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]).settlementId;
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');

test('the recorded scenarios are all there', () => {
  expect(files).toEqual(
    expect.arrayContaining(
      [
        'paid',
        'failed',
        'live-failed',
        'nothing-no-balance',
        'nothing-no-account',
        'paid-advanced',
        'failed-advanced',
        'failed-retried',
        'live-failed-retried',
        'retry-new-batch-paid',
        'retry-new-batch-nothing',
        'live-sweep-query-splits-first-task',
      ].map((s) => `${s}.json`),
    ),
  );
});

test('a failed batch waits for retrySettlement (open history); retried, it starts its new batch as a child and completes', () => {
  const types = (file: string) => load(file).events!.map((e) => e.eventType);
  const T = temporal.api.enums.v1.EventType;
  for (const file of ['failed.json', 'live-failed.json', 'failed-advanced.json']) {
    expect(types(file)).not.toContain(T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  }
  for (const file of ['failed-retried.json', 'live-failed-retried.json']) {
    const events = types(file);
    expect(events).toEqual(expect.arrayContaining([T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED, T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED]));
    expect(events[events.length - 1]).toBe(T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  }
  for (const file of ['retry-new-batch-paid.json', 'retry-new-batch-nothing.json']) {
    expect(load(file).events![0].workflowExecutionStartedEventAttributes!.parentWorkflowExecution?.workflowId).toMatch(/^stl_/);
  }
});

const replayed = replayBatch(async () => ({
  options: { workflowBundle: await workflowBundle(), dataConverter: codecDataConverter(testPayloadCodec()) },
  histories: files.map((file) => ({ name: file, history: load(file), workflowId: settlementIdOf(load(file)) })),
}));

test.each(files)('%s replays against the current workflow code', async (file) => {
  expect(load(file).events![0].workflowExecutionStartedEventAttributes!.workflowType?.name).toBe('settlementWorkflow');
  expect(await replayed(file)).toBeUndefined();
});

test.each(files)('%s holds no account data', (file) => {
  const text = fs.readFileSync(path.join(DIR, file), 'utf8');
  const decoded = [...text.matchAll(/"data": "([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1], 'base64').toString('utf8')).join('\n');
  expect(decoded).toContain('"settlementId"');
  expect(decoded).not.toContain(FAKE_ACCOUNT_NUMBER);
  expect(decoded).not.toContain(FAKE_ACCOUNT_NUMBER.slice(-4));
});

test('the guard works: replayed under another workflow id, the run refuses at once and replay fails', async () => {
  const history = load('paid.json');
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'stl_someoneelse')).rejects.toBeInstanceOf(DeterminismViolationError);
});
