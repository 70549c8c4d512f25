import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker, type LogLevel, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { randomBase62 } from '../../src/support/new-id';
import { chargeStartOperation } from '../../src/temporal/charge-start';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { installRuntime } from '../../workers/workflow-bundle';
import { ACCEPT_UPDATE_ID, acceptChargeUpdate } from '../../workflows/messages';
import { startChargeTestEnv } from '../workflows/support/charge-env';
import { APPLY_BEFORE_COMPLETION_TIMER } from './fixtures/patched-charge-workflow';

// The rule of test/replay/histories/README.md, shown on one change: moving the success transition
// before the completion timer breaks every recorded run when made in place
// (fixtures/altered-charge-workflow.ts), and breaks none when made behind patched()
// (fixtures/patched-charge-workflow.ts). New runs take the new order and carry the patch marker.

const DIR = path.join(__dirname, 'histories');
// The fixtures copy chargeWorkflow as it was when these five scenarios were recorded; histories of
// later code paths (e.g. the NeedsAttention give-up) belong to the real workflow, not to the fixtures.
const FIXTURE_SCENARIOS = ['succeed', 'pending-timeout', 'indeterminate-expiry', 'immediate-failure', 'early-expiry'];
const chargeHistories = FIXTURE_SCENARIOS.map((s) => `chargeWorkflow-${s}.json`);
const load = (file: string) => historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
const T = temporal.api.enums.v1.EventType;
installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();
const bundle = (fixture: 'altered-charge-workflow' | 'patched-charge-workflow') => {
  if (!bundles.has(fixture)) bundles.set(fixture, bundleWorkflowCode({ workflowsPath: require.resolve(`./fixtures/${fixture}`), logger: quiet }));
  return bundles.get(fixture)!;
};

test('every committed chargeWorkflow scenario is covered', () => {
  expect(fs.readdirSync(DIR)).toEqual(expect.arrayContaining(chargeHistories));
});

test('unguarded, the change fails replay of the recorded success with DeterminismViolationError', async () => {
  const replay = Worker.runReplayHistory({ workflowBundle: await bundle('altered-charge-workflow') }, load('chargeWorkflow-succeed.json'));
  await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
});

test.each(chargeHistories)('behind patched(), the same change replays %s', async (file) => {
  await expect(Worker.runReplayHistory({ workflowBundle: await bundle('patched-charge-workflow') }, load(file), file)).resolves.toBeUndefined();
});

test('a run recorded with the patched code takes the new order, carries the patch marker and replays', async () => {
  const h = await startChargeTestEnv();
  try {
    const taskQueue = `patched-${randomBase62(8)}`;
    const worker = await Worker.create({ connection: h.env.nativeConnection, taskQueue: taskQueueFor(taskQueue, 'sandbox'), workflowBundle: await bundle('patched-charge-workflow'), activities: h.store.activities });
    const draft = await h.draft();
    const history = await worker.runUntil(async () => {
      await h.env.client.workflow.executeUpdateWithStart(acceptChargeUpdate, { updateId: ACCEPT_UPDATE_ID, startWorkflowOperation: chargeStartOperation(draft, taskQueue) });
      const handle = h.env.client.workflow.getHandle(draft.id);
      expect(await handle.result()).toMatchObject({ id: draft.id, status: 'succeeded' });
      return handle.fetchHistory();
    });

    const events = history.events ?? [];
    const markers = events.filter((e) => e.eventType === T.EVENT_TYPE_MARKER_RECORDED).map((e) => e.markerRecordedEventAttributes!);
    const patch = markers.find((m) => m.markerName === 'core_patch');
    expect(patch).toBeDefined();
    const patchData = Object.values(patch!.details ?? {}).flatMap((p) => p.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString('utf8'));
    expect(patchData.join(' ')).toContain(APPLY_BEFORE_COMPLETION_TIMER);
    // New order: both local activities (acceptance, transition) are recorded before the timer starts.
    const timerAt = events.findIndex((e) => e.eventType === T.EVENT_TYPE_TIMER_STARTED);
    const activityMarkers = events.flatMap((e, i) => (e.markerRecordedEventAttributes?.markerName === 'core_local_activity' ? [i] : []));
    expect(activityMarkers).toHaveLength(2);
    expect(activityMarkers.every((i) => i < timerAt)).toBe(true);

    await expect(Worker.runReplayHistory({ workflowBundle: await bundle('patched-charge-workflow') }, history, 'patched-succeed')).resolves.toBeUndefined();
  } finally {
    await h.close();
  }
});
