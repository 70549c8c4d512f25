import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { RefundRecord } from '../../src/domain/refund';
import { refundStartOptions } from '../../src/temporal/refund-start';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { workflowBundle } from '../../workers/workflow-bundle';
import { refundStateQuery } from '../../workflows/refund';
import { queriedBeforeItsWorker } from './support/query-before-worker';
import { startRefundTestEnv, type RefundTestEnv } from './support/refund-env';
import { timelineOf } from './support/timeline';

// Issue 32 follow-up: the charge's replay flake (a query answered while the first local activity runs
// splits the first workflow task; on replay a `patched()` asked right after it answers false) in the
// refund workflow. A refund found already final by `beginRefund` (a run started again after it
// finished) goes straight to handlersFinished, whose patch (refund-settlement-handlers-finish) is then
// asked right after the local activity. The split is made certain (test/workflows/support/query-before-worker.ts).

let h: RefundTestEnv;
beforeAll(async () => {
  h = await startRefundTestEnv();
});
afterAll(async () => {
  await h?.close();
});

type History = temporal.api.history.v1.IHistory;

async function split(record: RefundRecord) {
  h.store.write(record);
  const { handle, worker, firstAnswer } = await queriedBeforeItsWorker({
    env: h.env,
    start: (base) => h.env.client.workflow.start('refundWorkflow', refundStartOptions(record, base)),
    queueOf: (base) => taskQueueFor(base, record.environment),
    query: refundStateQuery,
    activities: h.store.activities,
  });
  return worker.runUntil(async () => {
    expect(await firstAnswer).toBeFalsy(); // answered in the first task, before beginRefund loaded the refund
    const result = await handle.result();
    const history = await handle.fetchHistory();
    // The query on the closed run replays its whole history on this worker.
    const after = await handle.query(refundStateQuery);
    return { result, history, after };
  });
}

function expectSplit(history: History) {
  const begin = (history.events ?? []).findIndex((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  expect(begin).toBeGreaterThan(0);
  expect(timelineOf(history).eventTypes[begin + 1]).toBe('WORKFLOW_TASK_SCHEDULED');
}

async function replays(history: History, workflowId: string) {
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, workflowId)).resolves.toBeUndefined();
}

test("a refund already succeeded when its run begins, the begin split from the run's end by a query: the run replays, nothing written again", async () => {
  const record = await h.refund({ status: 'succeeded' });
  const r = await split(record);
  expectSplit(r.history);
  expect(r.result).toMatchObject({ status: 'succeeded' });
  expect(r.after).toMatchObject({ status: 'succeeded' });
  await replays(r.history, record.id);
});

test('a sandbox refund (no patched() right after begin), split the same way: replays, succeeds', async () => {
  const record = await h.refund();
  const r = await split(record);
  expectSplit(r.history);
  expect(r.result).toMatchObject({ status: 'succeeded' });
  await replays(r.history, record.id);
});
