import type { Client } from '@temporalio/client';
import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';
import type { Orm } from '../persistence/orm';
import type { Logger } from '../support/logger';
import { runPeriodically, type PeriodicLoop } from '../support/periodic-loop';
import { withinDeadline } from '../temporal/deadline';

/**
 * The start relay every payment type shares (charges, payouts, refunds). The API writes a payment
 * first and starts its workflow second, waiting at most CHARGE_START_WAIT_MS. A start that failed
 * (Temporal down), was still under way, or was cut short by a crash leaves a payment with no confirmed
 * workflow (`workflow_started_at` null); every poll this starts those older than
 * `unstartedAfterSeconds`, oldest first, BATCH at most per pass, START_CONCURRENCY at a time.
 * Starting one that exists does nothing (workflow id = payment id, never reused), so several relays,
 * or a relay racing the API, start each payment once.
 */

/** How often a relay looks. */
export const START_RELAY_POLL_MS = 1_000;
/**
 * Age before a relay takes a payment over: past the API's wait on its own start (1 s) with room for
 * a start that answers late, so the relay rarely repeats a start the API made.
 */
export const UNSTARTED_AFTER_SECONDS = 5;
const BATCH = 100;
const START_CONCURRENCY = 16;

export interface StartRelayDeps {
  orm: Orm;
  client: Client;
  /** TEMPORAL_TASK_QUEUE: each payment starts on its environment's queue (temporal/task-queues.ts). */
  taskQueue: string;
  log: Logger;
  unstartedAfterSeconds?: number;
  /** Longest wait for one start (TEMPORAL_REQUEST_DEADLINE_MS). */
  requestDeadlineMs?: number;
}

/** What a relay needs to know about one payment type. */
export interface StartRelayKind<T extends { id: string }> {
  /** `charge`, `payout`, `refund`: in log lines. */
  noun: string;
  find(orm: Orm, olderThanSeconds: number, limit: number): Promise<T[]>;
  start(client: Client, taskQueue: string, record: T): Promise<unknown>;
  markStarted(orm: Orm, ids: string[]): Promise<unknown>;
}

/**
 * One pass: starts the workflow of every payment found unstarted and marks each one known to exist.
 * Stops at the first batch with a failure and throws its first error (Temporal is likely down; the
 * next pass retries). Returns how many it started or found started.
 */
export async function startUnstarted<T extends { id: string }>(kind: StartRelayKind<T>, deps: StartRelayDeps): Promise<number> {
  const records = await kind.find(deps.orm, deps.unstartedAfterSeconds ?? UNSTARTED_AFTER_SECONDS, BATCH);
  const deadlineMs = deps.requestDeadlineMs ?? DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS;
  let confirmed = 0;
  for (let i = 0; i < records.length; i += START_CONCURRENCY) {
    const batch = records.slice(i, i + START_CONCURRENCY);
    const results = await Promise.allSettled(batch.map((record) => withinDeadline(deps.client, deadlineMs, () => kind.start(deps.client, deps.taskQueue, record))));
    const known = batch.filter((_, j) => results[j].status === 'fulfilled').map((r) => r.id);
    await kind.markStarted(deps.orm, known);
    confirmed += known.length;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
  return confirmed;
}

/** Runs `startUnstarted` every `pollMs` until stopped. */
export function runStartRelay<T extends { id: string }>(kind: StartRelayKind<T>, deps: StartRelayDeps, pollMs: number = START_RELAY_POLL_MS): PeriodicLoop {
  return runPeriodically(
    pollMs,
    async () => {
      const started = await startUnstarted(kind, deps);
      if (started > 0) deps.log.warn({ started }, `${kind.noun}-start relay started ${kind.noun}s whose workflow the API had not confirmed`);
    },
    (error) => deps.log.error({ err: error }, `${kind.noun}-start relay pass failed; retrying`),
  );
}
