import fs from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type LogLevel } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { RefundStart } from '../../src/domain/refund';
import { codecDataConverter } from '../../src/temporal/payload-codec';
import { installRuntime, workflowBundle } from '../../workers/workflow-bundle';
import { testPayloadCodec } from '../support/payload-codec';
import { replayBatch } from '../support/replay-batch';

// Every recorded refundWorkflow history (scripts/record-refund-histories.ts) must replay against the
// current workflow code. Each is replayed under its refund's id (from its input): a refund run refuses
// any other workflow id, as in production. No history may hold the refund's metadata or reason.

const DIR = path.join(__dirname, 'histories', 'refundWorkflow');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
const refundIdOf = (history: ReturnType<typeof load>) =>
  defaultPayloadConverter.fromPayload<RefundStart>(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]).refundId;
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');

test('the recorded scenarios are all there', () => {
  expect(files).toEqual(
    expect.arrayContaining(['succeed', 'immediate-failure', 'pending-timeout', 'pending-advanced', 'live-unavailable', 'not-found'].map((s) => `${s}.json`)),
  );
});

const replayed = replayBatch(async () => ({
  options: { workflowBundle: await workflowBundle(), dataConverter: codecDataConverter(testPayloadCodec()) },
  histories: files.map((file) => ({ name: file, history: load(file), workflowId: refundIdOf(load(file)) })),
}));

test.each(files)('%s replays against the current workflow code', async (file) => {
  const history = load(file);
  expect(history.events![0].workflowExecutionStartedEventAttributes!.workflowType?.name).toBe('refundWorkflow');
  expect(refundIdOf(history)).toMatch(/^re_/);
  expect(await replayed(file)).toBeUndefined();
});

test.each(files)('%s holds no refund metadata or reason', (file) => {
  const text = fs.readFileSync(path.join(DIR, file), 'utf8');
  const decoded = [...text.matchAll(/"data": "([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1], 'base64').toString('utf8')).join('\n');
  for (const secret of ['requested_by_customer', 'sandbox_outcome']) expect(decoded).not.toContain(secret);
});

test('the guard works: replayed under another workflow id, the run refuses at once and replay fails', async () => {
  const history = load('succeed.json');
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 're_someoneelse')).rejects.toBeInstanceOf(DeterminismViolationError);
});
