import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { COMPLETION_DELAY_MS } from '../../src/domain/sandbox-outcome';
import { workflowBundle } from '../../workers/workflow-bundle';
import { CHARGE_PATCHES_AS_ONE_PATCH, CHARGE_PATCHES_IN_ONE, RAIL_PATCHES_AT_START_PATCH } from '../../workflows/charge-patches';
import { SANDBOX_ADVANCE_PATCH } from '../../workflows/charge-timers';
import { advanceSignal, nextTimerQuery } from '../../workflows/messages';
import { REAL_TIME_HEADROOM_MS, startChargeTestEnv, type ChargeTestEnv, type DraftOptions } from './support/charge-env';
import { chargeQueriedBeforeItsWorker, untilSplit } from './support/query-before-worker';
import { timelineOf } from './support/timeline';
import { firstWaitingTimer, TimerMissed, waitFor } from './support/wait-for';

// Issue 32, the replay flake of charge-advance.test.ts: a query answered while `beginCharge` (a local
// activity) runs makes sdk-core close the first workflow task with that activity's marker and take
// its result in a second task. A replay resolves the activity in the first task, so whatever the run
// decided after it must not depend on where the tasks were cut: before the `rail-patches-at-start`
// patch, `patched('sandbox-advance')` answered false on replay, and the run could not be replayed
// (a query on the closed run, or the run evicted from the worker's cache, failed with TMPRL1100).
// Here the split is made certain (test/workflows/support/query-before-worker.ts).

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

type History = temporal.api.history.v1.IHistory;


const patchIds = (history: History) =>
  (history.events ?? [])
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
    .flatMap((e) => Object.values(e.markerRecordedEventAttributes!.details ?? {}).flatMap((p) => p.payloads ?? []))
    .map((p) => (JSON.parse(Buffer.from(p.data ?? []).toString('utf8')) as { id: string }).id);

async function splitAndAdvanced(options: DraftOptions) {
  const outcome = await untilSplit(() => splitAndAdvancedOnce(options));
  expect(outcome.firstAnswer).toBeFalsy(); // answered in the first task, before beginCharge loaded the charge
  return outcome;
}

async function splitAndAdvancedOnce(options: DraftOptions) {
  const draft = await h.draft(options);
  const { handle, worker, firstAnswer } = await chargeQueriedBeforeItsWorker(h, draft);
  return worker.runUntil(async () => {
    const first = await firstAnswer;
    const timer = await firstWaitingTimer(handle);
    await handle.signal(advanceSignal);
    const result = await h.settle(draft.id);
    const history = await handle.fetchHistory();
    // The query on the closed run replays its whole history on this worker.
    const after = await handle.query(nextTimerQuery);
    return { firstAnswer: first, draft, timer, result, history, after, transitions: h.store.transitionsOf(draft.id) };
  });
}

/** The first task ended with the begin marker; the timer was started in a later one (the split). */
function expectSplit(history: History) {
  const types = timelineOf(history).eventTypes;
  const begin = (history.events ?? []).findIndex((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  expect(begin).toBeGreaterThan(0);
  const nextTaskDone = types.indexOf('WORKFLOW_TASK_COMPLETED', begin);
  expect(nextTaskDone).toBeGreaterThan(begin);
  expect(nextTaskDone).toBeLessThan(types.indexOf('TIMER_STARTED'));
}

test('expiry before the rail answers, its begin split from its rail by a query: the run replays, advance wins, the charge expires', async () => {
  const r = await splitAndAdvanced({ metadata: { sandbox_outcome: 'pending' }, lifetimeMs: 60_000 });
  expectSplit(r.history);
  expect(r.timer.summary).toBe('expires_at reached before the rail answered');
  expect(r.transitions).toEqual([expect.objectContaining({ to: 'expired', failureClass: null })]);
  expect(r.result.status).toBe('expired');
  expect(r.after).toBeNull();
  // Issue 48: a new run's one marker stands for both (workflows/charge-patches.ts).
  expect(patchIds(r.history)).toEqual([CHARGE_PATCHES_AS_ONE_PATCH]);
  expect([...CHARGE_PATCHES_IN_ONE]).toEqual(expect.arrayContaining([RAIL_PATCHES_AT_START_PATCH, SANDBOX_ADVANCE_PATCH]));
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, r.history, r.draft.id)).resolves.toBeUndefined();
});

test('sandbox completion, its begin split from its rail by a query: the run replays, advance wins, the charge succeeds once', async () => {
  // The 3 s completion counts from the charge's creation (issue 34), and time does not skip while
  // the test acts: the query's 1.5 s lead, a new worker and two workflow tasks took those 3 s on a
  // CI machine (a .ci/run, 2026-11-30: eight runs in a row had fired before the test looked). Dated
  // ahead, the timer waits its whole 3 s from when the run starts it (railDue caps it at the delay).
  const r = await splitAndAdvanced({ createdAgoMs: -REAL_TIME_HEADROOM_MS });
  expectSplit(r.history);
  expect(r.timer.summary).toBe('sandbox completion: the customer approves');
  expect(Date.parse(r.timer.firesAt!) - Date.parse(r.draft.createdAt)).toBeLessThanOrEqual(COMPLETION_DELAY_MS + 10_000);
  expect(r.transitions).toEqual([expect.objectContaining({ to: 'succeeded', failureClass: null })]);
  expect(r.after).toBeNull();
  await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, r.history, r.draft.id)).resolves.toBeUndefined();
});

test('a run whose sandbox completion timer ran out (in real time) before the test looked: firstWaitingTimer says so at once, and untilSplit would run the scenario again', async () => {
  const draft = await h.draft({});
  const handle = await h.start(draft);
  // Time does not skip here: the 3 s timer fires in real time, the charge succeeds.
  await waitFor(async () => (await handle.describe()).status.name === 'COMPLETED');
  const started = Date.now();
  await expect(firstWaitingTimer(handle)).rejects.toBeInstanceOf(TimerMissed);
  expect(Date.now() - started).toBeLessThan(10_000);
});
