import type { Client, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { ensureCronSchedule } from './daily-schedule';
import { SETTLEMENT_RUN_WORKFLOW_TYPE, type SettlementRunInput } from '../domain/settlement-run';
import { settlementRunQueue } from './settlement-run-start';

/** Default SETTLEMENT_SCHEDULE: daily at 02:00 UTC. */
export const DEFAULT_SETTLEMENT_SCHEDULE = '0 2 * * *';

/** The Schedule of a deployment: one per TEMPORAL_TASK_QUEUE base, so deployments (and test instances) sharing a namespace never collide. */
export const settlementScheduleId = (baseQueue: string) => `settlement-run-${baseQueue}`;

type RunWorkflowFn = (input?: SettlementRunInput) => Promise<unknown>;

function action(baseQueue: string): ScheduleOptionsStartWorkflowAction<RunWorkflowFn> {
  return {
    type: 'startWorkflow',
    workflowType: SETTLEMENT_RUN_WORKFLOW_TYPE,
    // The server appends the scheduled time: settlement-run-<base>-2026-11-25T02:00:00Z.
    workflowId: settlementScheduleId(baseQueue),
    taskQueue: settlementRunQueue(baseQueue, undefined),
    args: [{}],
    staticSummary: 'settlement run: a batch for every merchant, environment and currency with a positive available balance',
  };
}

/**
 * Creates the settlement Schedule, or brings an existing one up to date (idempotent; called at every
 * worker start, workers/main.ts): cron `cron` in UTC (SETTLEMENT_SCHEDULE), overlap policy SKIP (a run
 * still going when the next is due makes that one skip), action: start settlementRunWorkflow with
 * input `{}` on the live queue of `baseQueue`. An update keeps the Schedule's state: one an operator
 * paused in the Temporal UI (Schedules) stays paused. A cron expression Temporal refuses throws an
 * Error naming SETTLEMENT_SCHEDULE.
 */
export async function ensureSettlementSchedule(client: Client, options: { taskQueue: string; cron: string }): Promise<{ scheduleId: string; created: boolean }> {
  return ensureCronSchedule(client, { scheduleId: settlementScheduleId(options.taskQueue), cron: options.cron, setting: 'SETTLEMENT_SCHEDULE', action: action(options.taskQueue) });
}
