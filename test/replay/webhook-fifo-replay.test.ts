import fs from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { LogLevel } from '@temporalio/worker';
import { fifoWorkflowId, type FifoWorkflowInput } from '../../src/domain/webhook-fifo';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import { replayBatch } from '../support/replay-batch';

// Every recorded webhookFifoWorkflow history (scripts/record-webhook-fifo-histories.ts) must replay
// against the current workflow code, under the workflow id it ran under (fifo-<its input's endpoint id>).

const DIR = path.join(__dirname, 'histories', 'webhookFifoWorkflow');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
const workflowIdOf = (history: ReturnType<typeof load>) =>
  fifoWorkflowId(defaultPayloadConverter.fromPayload<FifoWorkflowInput>(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]).endpointId);
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');

test('the recorded scenarios are all there', () => {
  expect(files).toEqual(['continued.json', 'idle-then-woken.json', 'not-fifo.json', 'ordered-retry.json', 'refused.json', 'sent-in-turn.json', 'skipped-behind.json', 'skipped-during-wait.json']);
});

const replayed = replayBatch(async () => ({
  options: { workflowBundle: await workflowBundle() },
  histories: files.map((file) => ({ name: file, history: load(file), workflowId: workflowIdOf(load(file)) })),
}));

test.each(files)('%s replays against the current workflow code', async (file) => {
  expect(load(file).events![0].workflowExecutionStartedEventAttributes!.workflowType?.name).toBe('webhookFifoWorkflow');
  expect(await replayed(file)).toBeUndefined();
});
