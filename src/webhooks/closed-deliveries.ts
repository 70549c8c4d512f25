import type { Client } from '@temporalio/client';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import type { Orm } from '../persistence/orm';
import { TEXT_ARRAY } from '../persistence/sql-values';
import type { Logger } from '../support/logger';
import { withinDeadline } from '../temporal/deadline';
import { startDeliveryWorkflow } from '../temporal/delivery-start';
import { taskQueueFor, webhookTaskQueueFor } from '../temporal/task-queues';

/**
 * Issue 32, deliveries that never end: a delivery workflow that failed, was terminated, cancelled or
 * timed out leaves its delivery `pending` with no run to end it. What a merchant expects is the event
 * at its endpoint at least once, so such a delivery is not closed as failed but started again: a new
 * run under the same id (allowed only after a run that did not complete), from its next attempt
 * (recorded attempts + 1), at once, with the rest of its retry schedule. A delivery whose runs keep
 * closing that way (MAX_REDISPATCHES new runs: a fault no new run cures) is recorded `failed` with the
 * reason and flagged for an operator (an error in the worker's log naming it), who can replay it. Closed runs are found in Temporal's visibility (this deployment's delivery queues, the
 * relay's environments), so open deliveries waiting on their schedule cost nothing.
 */

/** New runs for one delivery before it is recorded failed instead. */
export const MAX_REDISPATCHES = 3;
/** How often the running relay looks for closed runs. */
export const CLOSED_SWEEP_EVERY_MS = 30_000;
/** How far back the first look goes (runs closed while no relay ran). */
export const CLOSED_LOOKBACK_MS = 7 * 24 * 60 * 60_000;
/** Visibility lags a little behind a run's close: each look starts this much before the previous one began. */
const VISIBILITY_MARGIN_MS = 5 * 60_000;
const CLOSED_STATUSES = ['Failed', 'Terminated', 'Canceled', 'TimedOut'];
const BATCH = 100;

export const GAVE_UP_REASON = `not delivered: its workflow closed without ending it ${MAX_REDISPATCHES + 1} times; an operator has been told, and it can be replayed`;

export interface ClosedDeliveryDeps {
  orm: Orm;
  client: Client;
  /** TEMPORAL_TASK_QUEUE (the base). */
  taskQueue: string;
  retryScheduleMs: number[];
  log: Logger;
  environments?: readonly Environment[];
  requestDeadlineMs?: number;
}

interface PendingRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  merchant_id: string;
  environment: Environment;
  event_type: string;
  attempt_count: number;
  redispatches: number;
}

/** Ids of delivery runs of this deployment that closed without completing since `sinceMs`. */
async function closedRunIds(deps: ClosedDeliveryDeps, sinceMs: number): Promise<string[]> {
  const queues = (deps.environments ?? ENVIRONMENTS).flatMap((e) => [webhookTaskQueueFor(deps.taskQueue, e), taskQueueFor(deps.taskQueue, e)]);
  const query =
    `WorkflowType = 'webhookDeliveryWorkflow' AND ExecutionStatus IN (${CLOSED_STATUSES.map((s) => `'${s}'`).join(', ')})` +
    ` AND TaskQueue IN (${queues.map((q) => `'${q.replaceAll("'", "''")}'`).join(', ')}) AND CloseTime >= '${new Date(sinceMs).toISOString()}'`;
  const ids = new Set<string>();
  await withinDeadline(deps.client, deps.requestDeadlineMs, async () => {
    for await (const run of deps.client.workflow.list({ query, pageSize: BATCH })) ids.add(run.workflowId);
  });
  return [...ids];
}

/** The delivery's latest run still closed without completing? (A newer run may have been started meanwhile.) */
async function latestRunClosedUnended(deps: ClosedDeliveryDeps, id: string): Promise<boolean> {
  const description = await withinDeadline(deps.client, deps.requestDeadlineMs, () => deps.client.workflow.getHandle(id).describe());
  return ['FAILED', 'TERMINATED', 'CANCELLED', 'TIMED_OUT'].includes(description.status.name);
}

/**
 * One look: every delivery of a run closed since `sinceMs` that is still pending is started again, or,
 * past MAX_REDISPATCHES, recorded failed. Returns what it did.
 */
export async function redispatchClosedDeliveries(deps: ClosedDeliveryDeps, sinceMs: number): Promise<{ restarted: string[]; failed: string[] }> {
  const ids = await closedRunIds(deps, sinceMs);
  const done = { restarted: [] as string[], failed: [] as string[] };
  if (ids.length === 0) return done;
  const conn = deps.orm.em.getConnection();
  const rows = await conn.execute<PendingRow[]>(
    `select id, endpoint_id, event_id, merchant_id, environment, event_type, attempt_count, redispatches
     from webhook_deliveries where id = any(${TEXT_ARRAY}) and status = 'pending'`,
    [JSON.stringify(ids)],
  );
  for (const row of rows) {
    if (!(await latestRunClosedUnended(deps, row.id))) continue;
    if (row.redispatches >= MAX_REDISPATCHES) {
      const updated = await conn.execute(
        `update webhook_deliveries set status = 'failed', last_error = ?, next_attempt_at = null, completed_at = now(), updated_at = now()
         where id = ? and status = 'pending' returning id`,
        [GAVE_UP_REASON, row.id],
      );
      if (updated.length > 0) {
        deps.log.error({ deliveryId: row.id, endpointId: row.endpoint_id, environment: row.environment, redispatches: row.redispatches },
          'webhook delivery recorded failed: its workflow keeps closing without ending it; look at the run, then replay the delivery');
        done.failed.push(row.id);
      }
      continue;
    }
    // Counted first: a crash after it costs one of the bound, never a run started twice uncounted.
    const counted = await conn.execute(
      `update webhook_deliveries set redispatches = redispatches + 1, updated_at = now() where id = ? and status = 'pending' and redispatches = ? returning id`,
      [row.id, row.redispatches],
    );
    if (counted.length === 0) continue; // another relay took it
    await withinDeadline(deps.client, deps.requestDeadlineMs, () =>
      startDeliveryWorkflow(
        deps.client,
        deps.taskQueue,
        {
          deliveryId: row.id,
          eventId: row.event_id,
          eventType: row.event_type,
          endpointId: row.endpoint_id,
          merchantId: row.merchant_id,
          environment: row.environment,
          retryScheduleMs: deps.retryScheduleMs,
          localFirstAttempt: false,
          firstAttempt: row.attempt_count + 1,
        },
        { afterClosedRun: true },
      ),
    );
    deps.log.warn({ deliveryId: row.id, firstAttempt: row.attempt_count + 1, redispatch: row.redispatches + 1 }, 'webhook delivery started again: its workflow had closed without ending it');
    done.restarted.push(row.id);
  }
  return done;
}

/** The running relay's looks (every CLOSED_SWEEP_EVERY_MS, one at a time): each from a little before the previous one began. */
export function closedDeliverySweep(deps: ClosedDeliveryDeps): { run(): Promise<void> } {
  let since = Date.now() - CLOSED_LOOKBACK_MS;
  return {
    async run() {
      const began = Date.now();
      try {
        const { restarted, failed } = await redispatchClosedDeliveries(deps, since);
        since = began - VISIBILITY_MARGIN_MS;
        if (restarted.length + failed.length > 0) deps.log.warn({ restarted: restarted.length, failed: failed.length }, 'webhook outbox relay handled deliveries whose workflow had closed without ending them');
      } catch (error) {
        deps.log.error({ err: error }, 'webhook closed-delivery sweep failed; retrying');
      }
    },
  };
}
