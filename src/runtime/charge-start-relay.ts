import type { Client } from '@temporalio/client';
import { withinDeadline } from '../temporal/deadline';
import { runPeriodically } from '../support/periodic-loop';
import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';
import { findUnstartedCharges, markChargeWorkflowsStarted } from '../persistence/charge-workflow-start-store';
import type { Orm } from '../persistence/orm';
import type { Logger } from '../support/logger';
import { startChargeWorkflow } from '../temporal/charge-start';

/**
 * The charge-start relay, in the worker process: POST /v1/charges writes a charge first and starts
 * its workflow second, waiting at most CHARGE_START_WAIT_MS. A start that failed (Temporal down), was
 * still under way, or was cut short by a crash of the API leaves a charge with no confirmed workflow
 * (`workflow_started_at` null); every POLL_MS this starts those older than UNSTARTED_AFTER_SECONDS,
 * oldest first, BATCH at most per pass. Starting one that exists does nothing (workflow id = charge
 * id, never reused), so several relays, or a relay racing the API, start each charge once.
 */

/** How often the relay looks. */
export const CHARGE_START_POLL_MS = 1_000;
/**
 * Age before the relay takes a charge over: past the API's wait on its own start (1 s) with room for
 * a start that answers late, so the relay rarely repeats a start the API made.
 */
export const UNSTARTED_AFTER_SECONDS = 5;
const BATCH = 100;
const START_CONCURRENCY = 16;

export interface ChargeStartRelayDeps {
  orm: Orm;
  client: Client;
  /** TEMPORAL_TASK_QUEUE: each charge starts on its environment's queue (temporal/task-queues.ts). */
  taskQueue: string;
  log: Logger;
  unstartedAfterSeconds?: number;
  /** Longest wait for one start (TEMPORAL_REQUEST_DEADLINE_MS). */
  requestDeadlineMs?: number;
}

/**
 * One pass: starts the workflow of every charge found unstarted, START_CONCURRENCY at a time, and
 * marks each one known to exist. Stops at the first batch with a failure and throws its first error
 * (Temporal is likely down; the next pass retries). Returns how many it started or found started.
 */
export async function startUnstartedCharges(deps: ChargeStartRelayDeps): Promise<number> {
  const charges = await findUnstartedCharges(deps.orm, deps.unstartedAfterSeconds ?? UNSTARTED_AFTER_SECONDS, BATCH);
  const deadlineMs = deps.requestDeadlineMs ?? DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS;
  let confirmed = 0;
  for (let i = 0; i < charges.length; i += START_CONCURRENCY) {
    const batch = charges.slice(i, i + START_CONCURRENCY);
    const results = await Promise.allSettled(
      batch.map((charge) => withinDeadline(deps.client, deadlineMs, () => startChargeWorkflow(deps.client, deps.taskQueue, charge))),
    );
    const known = batch.filter((_, j) => results[j].status === 'fulfilled').map((c) => c.id);
    await markChargeWorkflowsStarted(deps.orm, known);
    confirmed += known.length;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
  return confirmed;
}

export interface ChargeStartRelay {
  stop(): Promise<void>;
}

export function startChargeStartRelay(deps: ChargeStartRelayDeps, pollMs: number = CHARGE_START_POLL_MS): ChargeStartRelay {
  return runPeriodically(
    pollMs,
    async () => {
      const started = await startUnstartedCharges(deps);
      if (started > 0) deps.log.warn({ started }, 'charge-start relay started charges whose workflow the API had not confirmed');
    },
    (error) => deps.log.error({ err: error }, 'charge-start relay pass failed; retrying'),
  );
}
