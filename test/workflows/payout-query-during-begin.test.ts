import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { payoutStartOptions } from '../../src/temporal/payout-start';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { workflowBundle } from '../../workers/workflow-bundle';
import { payoutStateQuery } from '../../workflows/payout-messages';
import type { PayoutOptions } from './support/payout-env';
import { startPayoutTestEnv, type PayoutTestEnv } from './support/payout-env';
import { queriedBeforeItsWorker, untilSplit } from './support/query-before-worker';
import { timelineOf } from './support/timeline';

// Issue 32 follow-up: the charge's replay flake (a query answered while `beginCharge` runs splits the
// first workflow task; on replay a `patched()` asked right after the local activity answers false) in
// the payout workflow. `beginPayout` is followed at once by the rail's patched() calls for a live
// payout (live-partner-rail, partner-word-only) and for a sandbox `indeterminate` one (partner-word-only).
// The split is made certain (test/workflows/support/query-before-worker.ts); the closed run is then
// queried (its whole history replayed on the worker) and replayed.

let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});

type History = temporal.api.history.v1.IHistory;

async function split(options: PayoutOptions) {
  const outcome = await untilSplit(() => splitOnce(options));
  expect(outcome.firstAnswer).toBeFalsy(); // answered in the first task, before beginPayout loaded the payout
  return outcome;
}

async function splitOnce(options: PayoutOptions) {
  const record = await h.payout(options);
  h.store.write(record);
  const { handle, worker, firstAnswer } = await queriedBeforeItsWorker({
    env: h.env,
    start: (base) => h.env.client.workflow.start('payoutWorkflow', payoutStartOptions(record, base)),
    queueOf: (base) => taskQueueFor(base, record.environment),
    query: payoutStateQuery,
    activities: { ...h.store.activities, ...h.rail.activities },
  });
  return worker.runUntil(async () => {
    const first = await firstAnswer;
    const result = await handle.result();
    const history = await handle.fetchHistory();
    // The query on the closed run replays its whole history on this worker.
    const after = await handle.query(payoutStateQuery);
    return { firstAnswer: first, record, result, history, after, transitions: h.store.transitionsOf(record.id).map((t) => t.to) };
  });
}

/** The split: the task that recorded the begin marker ended with it, and the run went on in a task of its own. */
function expectSplit(history: History) {
  const begin = (history.events ?? []).findIndex((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  expect(begin).toBeGreaterThan(0);
  expect(timelineOf(history).eventTypes[begin + 1]).toBe('WORKFLOW_TASK_SCHEDULED');
}

async function replays(history: History, workflowId: string) {
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowId)).resolves.toBeUndefined();
}

test('live payout, its begin split from its rail by a query: the run replays, the partner pays it once', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'ft-split' }]);
  const r = await split({ environment: 'live' });
  expectSplit(r.history);
  expect(r.transitions).toEqual(['succeeded']);
  expect(r.after).toMatchObject({ status: 'succeeded' });
  await replays(r.history, r.record.id);
});

test('sandbox indeterminate payout, its begin split from its rail by a query: the run replays, the late answer (24 h) pays it once', async () => {
  const r = await split({ sandboxOutcome: 'indeterminate' });
  expectSplit(r.history);
  expect(r.transitions).toEqual(['succeeded']);
  expect(r.after).toMatchObject({ status: 'succeeded' });
  await replays(r.history, r.record.id);
});

test('sandbox payout without outcome (no patched() after begin), split the same way: replays', async () => {
  const r = await split({});
  expectSplit(r.history);
  expect(r.transitions).toEqual(['succeeded']);
  await replays(r.history, r.record.id);
});
