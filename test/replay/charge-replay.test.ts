import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, Worker, type LogLevel } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { installRuntime, workflowBundle } from '../../workers/create-worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { codecDataConverter } from '../../src/temporal/payload-codec';
import { testPayloadCodec } from '../support/payload-codec';

// Every recorded history (scripts/record-histories.ts) must replay against the current workflow code;
// a change that would break running workflows fails here instead of in production.

const DIR = path.join(__dirname, 'histories');
const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;

test('the recorded scenarios are all there', () => {
  expect(files).toEqual(
    expect.arrayContaining(
      ['succeed', 'pending-timeout', 'indeterminate-expiry', 'immediate-failure']
        // Write first, then start (input `{ chargeId }`); the runs above were started by update-with-start.
        .concat(['begin-succeed', 'begin-pending-timeout', 'begin-indeterminate-expiry', 'begin-immediate-failure', 'begin-not-found'])
        .map((s) => `chargeWorkflow-${s}.json`)
        .concat('chargeReversalWorkflow-reversal.json'),
    ),
  );
});

test.each(files)('%s replays against the current workflow code', async (file) => {
  const history = load(file);
  expect(history.events?.length).toBeGreaterThan(2);
  // With the payload codec, as deployed: histories recorded before it (unencoded) pass through it.
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle(), dataConverter: codecDataConverter(testPayloadCodec()) }, history, file)).resolves.toBeUndefined();
});

test('the guard works: an incompatible edit of chargeWorkflow fails replay with DeterminismViolationError', async () => {
  const altered = await bundleWorkflowCode({ workflowsPath: require.resolve('./fixtures/altered-charge-workflow'), logger: quiet });
  const replay = Worker.runReplayHistory({ workflowBundle: altered }, load('chargeWorkflow-succeed.json'));
  await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
  await expect(replay).rejects.toThrow(/TimerStarted/); // the reordered timer, not some other difference
});
