import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { LogLevel } from '@temporalio/worker';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import { replayBatch } from '../support/replay-batch';

// Every recorded webhookRecoveryWorkflow history (scripts/record-webhook-recovery-histories.ts) must
// replay against the current workflow code.

const DIR = path.join(__dirname, 'histories', 'webhookRecoveryWorkflow');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');

test('the recorded scenarios are all there', () => {
  expect(files).toEqual(['continued.json', 'nothing.json', 'paged.json', 'refused.json']);
});

const replayed = replayBatch(async () => ({
  options: { workflowBundle: await workflowBundle() },
  histories: files.map((file) => ({ name: file, history: load(file), workflowId: `whr_recorded-${file.replace(/\.json$/, '')}` })),
}));

test.each(files)('%s replays against the current workflow code', async (file) => {
  expect(load(file).events![0].workflowExecutionStartedEventAttributes!.workflowType?.name).toBe('webhookRecoveryWorkflow');
  expect(await replayed(file)).toBeUndefined();
});
