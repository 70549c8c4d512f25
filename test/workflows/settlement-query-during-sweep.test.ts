import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { Environment } from '../../src/domain/environment';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../../src/domain/settlement-start';
import { settlementStartSearchAttributePairs } from '../../src/domain/settlement-search-attributes';
import { newId } from '../../src/support/new-id';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { workflowBundle } from '../../workers/workflow-bundle';
import { settlementStateQuery } from '../../workflows/settlement';
import { queriedBeforeItsWorker } from './support/query-before-worker';
import { startSettlementTestEnv, type SettlementTestEnv } from './support/settlement-env';
import { timelineOf } from './support/timeline';

// Issue 32 follow-up: the charge's replay flake (a query answered while the first local activity runs
// splits the first workflow task; on replay a `patched()` asked right after it answers false) in the
// settlement workflow. `sweepSettlement` is followed at once by patched() for a live batch
// (live-partner-rail, partner-word-only) and, when the sweep finds nothing, by the handlers-finish
// patch (refund-settlement-handlers-finish). The split is made certain
// (test/workflows/support/query-before-worker.ts); the closed run is then queried and replayed.

let h: SettlementTestEnv;
beforeAll(async () => {
  h = await startSettlementTestEnv();
});
afterAll(async () => {
  await h?.close();
});

type History = temporal.api.history.v1.IHistory;

async function split(merchantId: string, environment: Environment) {
  const input: SettlementStart = { settlementId: newId('settlement'), merchantId, environment, currency: 'GHS', outcome: null, runId: 'run_test' };
  const { handle, worker, firstAnswer } = await queriedBeforeItsWorker({
    env: h.env,
    start: (base) =>
      h.env.client.workflow.start(SETTLEMENT_WORKFLOW_TYPE, {
        workflowId: input.settlementId,
        taskQueue: taskQueueFor(base, environment),
        args: [input],
        typedSearchAttributes: settlementStartSearchAttributePairs(input),
      }),
    queueOf: (base) => taskQueueFor(base, environment),
    query: settlementStateQuery,
    activities: { ...h.store.activities, ...h.rail.activities },
  });
  return worker.runUntil(async () => {
    expect(await firstAnswer).toBeFalsy(); // answered in the first task, before the sweep
    const result = await handle.result();
    const history = await handle.fetchHistory();
    // The query on the closed run replays its whole history on this worker.
    const after = await handle.query(settlementStateQuery);
    return { id: input.settlementId, result, history, after, transitions: h.store.transitionsOf(input.settlementId).map((t) => t.to) };
  });
}

/** The split: the task that recorded the sweep's marker ended with it, and the run went on in a task of its own. */
function expectSplit(history: History) {
  const sweep = (history.events ?? []).findIndex((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  expect(sweep).toBeGreaterThan(0);
  expect(timelineOf(history).eventTypes[sweep + 1]).toBe('WORKFLOW_TASK_SCHEDULED');
}

async function replays(history: History, workflowId: string) {
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowId)).resolves.toBeUndefined();
}

test('live batch, its sweep split from its rail by a query: the run replays, the partner pays it once', async () => {
  const merchantId = h.merchant(30_000, 'live');
  h.rail.partner({ kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'ft-stl-split' }]);
  const r = await split(merchantId, 'live');
  expectSplit(r.history);
  expect(r.transitions).toEqual(['paid']);
  expect(r.after).toMatchObject({ status: 'paid' });
  expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 0, inTransit: 0 });
  await replays(r.history, r.id);
});

test("nothing to sweep, the sweep split from the run's end by a query: the run replays", async () => {
  const r = await split(h.merchant(0), 'sandbox');
  expectSplit(r.history);
  expect(r.result).toMatchObject({ kind: 'nothing' });
  expect(r.transitions).toEqual([]);
  await replays(r.history, r.id);
});

test('sandbox batch (no patched() right after the sweep), split the same way: replays, paid once', async () => {
  const merchantId = h.merchant(12_000);
  const r = await split(merchantId, 'sandbox');
  expectSplit(r.history);
  expect(r.transitions).toEqual(['paid']);
  expect(r.after).toMatchObject({ status: 'paid' });
  await replays(r.history, r.id);
});
