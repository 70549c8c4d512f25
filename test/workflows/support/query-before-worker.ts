import type { WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { ChargeDraft } from '../../../src/domain/charge';
import { randomBase62 } from '../../../src/support/new-id';
import { chargeStartOptions } from '../../../src/temporal/charge-start';
import { deploymentTaskQueues } from '../../../src/temporal/task-queues';
import { workflowBundle } from '../../../workers/workflow-bundle';
import type { chargeWorkflow } from '../../../workflows/charge';
import { chargeStateQuery } from '../../../workflows/messages';
import type { ChargeTestEnv } from './charge-env';
import { auditLog } from './fake-audit';
import { TimerMissed } from './wait-for';

/**
 * Real time the query is given to reach the server before the worker starts polling. 300 ms was
 * not always enough on a loaded CI machine (a .ci/run, 2026-11-27: refund-query-during-begin's run
 * was not split): a query that arrives after the worker took the first workflow task is answered
 * apart while the local activity runs, and the task is not split.
 */
const QUERY_LEAD_MS = 1500;

export interface QueriedBeforeItsWorker {
  handle: WorkflowHandle<typeof chargeWorkflow>;
  /** A worker of its own for the run's task queue: `worker.runUntil(...)` drives the run. */
  worker: Worker;
  /** The first query's answer: no charge yet (the run answers it in its first workflow task, before `beginCharge` loaded it). */
  firstAnswer: Promise<unknown>;
}

/**
 * The workflow-task split behind the issue 32 replay flake, made certain instead of left to load: the
 * charge is written and its run started on a task queue no worker polls yet, a `chargeState` query is
 * sent, and only then a worker starts. The server hands the query over with the run's first workflow
 * task, so the query is answered while `beginCharge` (a local activity) runs; sdk-core then completes
 * that task with the activity's marker and forces a new one, where the workflow takes the result.
 * On a loaded CI machine the polling of `waitingTimer` did the same by chance.
 */
export async function chargeQueriedBeforeItsWorker(h: ChargeTestEnv, draft: ChargeDraft): Promise<QueriedBeforeItsWorker> {
  const { sandboxOutcome: _, ...record } = draft;
  h.store.write(record);
  const taskQueue = `charges-${randomBase62(8)}`;
  const handle = await h.env.client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', chargeStartOptions(record, taskQueue));
  const firstAnswer = handle.query(chargeStateQuery);
  firstAnswer.catch(() => undefined); // awaited by the caller; never an unhandled rejection meanwhile
  await new Promise((resolve) => setTimeout(resolve, QUERY_LEAD_MS));
  const worker = await Worker.create({
    connection: h.env.nativeConnection,
    taskQueue: deploymentTaskQueues(taskQueue)[record.environment],
    workflowBundle: await workflowBundle(),
    activities: h.store.activities,
  });
  return { handle, worker, firstAnswer };
}

/** What `queriedBeforeItsWorker` needs: how to start the run on a base queue, the queue to poll, the query, the activities. */
export interface QueryBeforeWorkerPlan<H extends WorkflowHandle> {
  env: ChargeTestEnv['env'];
  /** Starts the run on `baseQueue` (a fresh one no worker polls yet). */
  start(baseQueue: string): Promise<H>;
  /** The queue the run's workflow tasks go to, of `baseQueue`. */
  queueOf(baseQueue: string): string;
  query: QueryDefinition<unknown>;
  activities: object;
}

/**
 * The same split for any workflow type (issue 32 follow-up): the run started on a queue no worker
 * polls, `query` sent, then a worker of its own started: the query comes with the run's first
 * workflow task, so the first local activity's result is taken in a second task.
 */
export async function queriedBeforeItsWorker<H extends WorkflowHandle>(plan: QueryBeforeWorkerPlan<H>): Promise<{ handle: H; worker: Worker; firstAnswer: Promise<unknown> }> {
  const base = `split-${randomBase62(8)}`;
  const handle = await plan.start(base);
  const firstAnswer = handle.query(plan.query);
  firstAnswer.catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, QUERY_LEAD_MS));
  const worker = await Worker.create({
    connection: plan.env.nativeConnection,
    taskQueue: plan.queueOf(base),
    workflowBundle: await workflowBundle(),
    activities: { ...auditLog.activities, ...plan.activities },
  });
  return { handle, worker, firstAnswer };
}

/**
 * How many runs `untilSplit` makes at most before the caller's assertion of the split decides. A run
 * that misses its 3 s timer costs a few seconds; on the loaded machines of 2026-11-30 (load 8-10, the
 * CPU 2.7 times slower) three runs in a row missed it, in CI and in a whole local `npm test`.
 */
export const SPLIT_ATTEMPTS = 8;

/**
 * Runs `scenario` (one run, queried before its worker, driven to its end) until its run was split:
 * `firstAnswer` empty, the query answered in the first workflow task before the run loaded anything.
 * The split needs the query to reach the time-skipping server before the worker polls, which a lead
 * of real time makes likely, not certain: on a loaded machine (a fresh-clone `npm test`, 2026-11-28)
 * payout-query-during-begin's query was answered with the payout loaded. A run that was not split is
 * not the case under test, so the scenario runs again with a new run, at most SPLIT_ATTEMPTS times;
 * the caller asserts the split of the outcome it gets, so a split that never comes still fails.
 * For scenarios whose runs are independent (each makes its own payment).
 */
export async function untilSplit<T extends { firstAnswer: unknown }>(scenario: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let outcome: T;
    try {
      outcome = await scenario();
    } catch (error) {
      // Nor is a run whose timer ran out in real time before the test could act on it (TimerMissed).
      if (error instanceof TimerMissed && attempt < SPLIT_ATTEMPTS) continue;
      throw error;
    }
    if (!outcome.firstAnswer || attempt >= SPLIT_ATTEMPTS) return outcome;
  }
}
