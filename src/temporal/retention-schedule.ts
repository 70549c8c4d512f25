import type { Client, ScheduleOptionsStartWorkflowAction, WorkflowStartOptions } from '@temporalio/client';
import { ensureCronSchedule } from './daily-schedule';
import { RETENTION_WORKFLOW_TYPE, type RetentionInput, type RetentionResult } from '../domain/retention';
import { randomBase62 } from '../support/new-id';
import { taskQueueFor } from './task-queues';

/** The retention Schedule of a deployment: one per TEMPORAL_TASK_QUEUE base, like the settlement Schedule. */
export const retentionScheduleId = (baseQueue: string) => `retention-${baseQueue}`;

type RetentionWorkflowFn = (input?: RetentionInput) => Promise<RetentionResult>;

/** Runs go to the live queue, as settlement runs and statement imports do: a sandbox flood never holds them. */
export const retentionQueue = (baseQueue: string) => taskQueueFor(baseQueue, 'live');

function action(baseQueue: string): ScheduleOptionsStartWorkflowAction<RetentionWorkflowFn> {
  return {
    type: 'startWorkflow',
    workflowType: RETENTION_WORKFLOW_TYPE,
    // The server appends the scheduled time: retention-<base>-2026-12-10T04:17:00Z.
    workflowId: retentionScheduleId(baseQueue),
    taskQueue: retentionQueue(baseQueue),
    args: [{}],
    staticSummary: 'retention: ended webhook deliveries, idempotency keys, rate-limit counters and ended notifications past their windows, deleted in batches',
  };
}

/**
 * Creates the retention Schedule, or brings it up to date (idempotent; at every worker start,
 * workers/main.ts), as ensureSettlementSchedule does: cron in UTC (RETENTION_SCHEDULE), overlap SKIP
 * (a run still going when the next is due makes that one skip), a missed run taken within a day; a
 * Schedule an operator paused stays paused. A cron expression Temporal refuses throws an Error naming
 * RETENTION_SCHEDULE.
 */
export async function ensureRetentionSchedule(client: Client, options: { taskQueue: string; cron: string }): Promise<{ scheduleId: string; created: boolean }> {
  return ensureCronSchedule(client, { scheduleId: retentionScheduleId(options.taskQueue), cron: options.cron, setting: 'RETENTION_SCHEDULE', action: action(options.taskQueue) });
}

/** `retention run` (and a bench): a run started now under its own id, as the Schedule starts one. */
export function retentionRunStartOptions(baseQueue: string): WorkflowStartOptions<RetentionWorkflowFn> & { args: [RetentionInput] } {
  return {
    workflowId: `retention-run-${randomBase62(16)}`,
    taskQueue: retentionQueue(baseQueue),
    args: [{}],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    staticSummary: 'retention run by hand',
  };
}

/**
 * One retention run now, through Temporal and a worker of this deployment, as the Schedule runs it;
 * waits for its result (through its continue-as-new runs). A bench triggers the job with this.
 */
export async function runRetentionNow(client: Client, baseQueue: string): Promise<RetentionResult & { workflowId: string }> {
  const options = retentionRunStartOptions(baseQueue);
  const handle = await client.workflow.start<RetentionWorkflowFn>(RETENTION_WORKFLOW_TYPE, options);
  return { workflowId: options.workflowId, ...(await handle.result()) };
}
