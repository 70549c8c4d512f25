import fs from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type LogLevel } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { codecDataConverter } from '../../src/temporal/payload-codec';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import { testPayloadCodec } from '../support/payload-codec';
import type { SettlementRunInput } from '../../src/domain/settlement-run';
import { replayBatch } from '../support/replay-batch';

// Every recorded settlementRunWorkflow history (scripts/record-settlement-run-histories.ts) must replay
// against the current workflow code, under the workflow id it ran under (its input's runId): the batch
// ids it started come from its seeded uuid4, so a replay that started other ids (or other starts) fails.

const DIR = path.join(__dirname, 'histories', 'settlementRunWorkflow');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
const runIdOf = (history: ReturnType<typeof load>) =>
  defaultPayloadConverter.fromPayload<SettlementRunInput>(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]).runId!;
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');

test('the recorded scenarios are all there', () => {
  expect(files).toEqual(expect.arrayContaining(['pages-and-skips', 'continue-as-new', 'sandbox-outcome-failed', 'refused'].map((s) => `${s}.json`)));
});

const replayed = replayBatch(async () => ({
  options: { workflowBundle: await workflowBundle(), dataConverter: codecDataConverter(testPayloadCodec()) },
  histories: files.map((file) => ({ name: file, history: load(file), workflowId: runIdOf(load(file)) })),
}));

test.each(files)('%s replays against the current workflow code', async (file) => {
  expect(load(file).events![0].workflowExecutionStartedEventAttributes!.workflowType?.name).toBe('settlementRunWorkflow');
  expect(await replayed(file)).toBeUndefined();
});

test('the guard works: a history whose batch ids were another run\'s does not replay', async () => {
  const history = load('pages-and-skips.json');
  const started = history.events!.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)!.startChildWorkflowExecutionInitiatedEventAttributes!;
  started.workflowId = 'stl_000000000000000000000000';
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, runIdOf(history))).rejects.toBeInstanceOf(DeterminismViolationError);
});
