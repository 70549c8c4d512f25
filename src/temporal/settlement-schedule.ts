import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { SETTLEMENT_RUN_WORKFLOW_TYPE, type SettlementRunInput } from '../domain/settlement-run';
import { settlementRunQueue } from './settlement-run-start';

/** Default SETTLEMENT_SCHEDULE: daily at 02:00 UTC. */
export const DEFAULT_SETTLEMENT_SCHEDULE = '0 2 * * *';

/** The Schedule of a deployment: one per TEMPORAL_TASK_QUEUE base, so deployments (and test instances) sharing a namespace never collide. */
export const settlementScheduleId = (baseQueue: string) => `settlement-run-${baseQueue}`;

/** A missed run (the server was down at its time) is still taken within this window, once (overlap SKIP). */
const CATCHUP_WINDOW = '1 day';

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
  const scheduleId = settlementScheduleId(options.taskQueue);
  const spec = { cronExpressions: [options.cron], timezone: 'UTC' };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW };
  try {
    try {
      await client.schedule.create({
        scheduleId,
        spec,
        action: action(options.taskQueue),
        policies,
        state: { note: `SETTLEMENT_SCHEDULE ${options.cron} (UTC); created at worker start` },
      });
      return { scheduleId, created: true };
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    }
    await client.schedule.getHandle(scheduleId).update((previous) => ({
      ...previous,
      spec,
      action: action(options.taskQueue),
      policies,
      state: { paused: previous.state.paused, note: previous.state.note, remainingActions: previous.state.remainingActions },
    }));
    return { scheduleId, created: false };
  } catch (error) {
    // The client turns the server's "Invalid schedule spec" into a TypeError with its reason.
    if (error instanceof TypeError) throw new Error(`SETTLEMENT_SCHEDULE "${options.cron}" was refused by Temporal: ${error.message}`);
    throw error;
  }
}
