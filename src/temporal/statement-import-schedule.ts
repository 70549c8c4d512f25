import type { Client, ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { ensureCronSchedule } from './daily-schedule';
import { STATEMENT_IMPORT_WORKFLOW_TYPE, type StatementImportInput } from '../domain/statement-import';
import { taskQueueFor } from './task-queues';
import type { PartnerName } from '../domain/rail-routes';

/** Default STATEMENT_IMPORT_SCHEDULE: daily at 03:00 UTC, yesterday's statements. */
export const DEFAULT_STATEMENT_IMPORT_SCHEDULE = '0 3 * * *';

/** One Schedule per deployment (TEMPORAL_TASK_QUEUE base), like the settlement Schedule. */
export const statementImportScheduleId = (baseQueue: string) => `statement-import-${baseQueue}`;

type ImportWorkflowFn = (input?: StatementImportInput) => Promise<unknown>;

function action(baseQueue: string, partners?: readonly PartnerName[]): ScheduleOptionsStartWorkflowAction<ImportWorkflowFn> {
  const whose = partners ? `${partners.join(', ')} ` : '';
  return {
    type: 'startWorkflow',
    workflowType: STATEMENT_IMPORT_WORKFLOW_TYPE,
    workflowId: statementImportScheduleId(baseQueue),
    taskQueue: taskQueueFor(baseQueue, 'live'),
    // Each partner's statements (issue 45); without `partners`, MoMo's (a run of the workflow reads none as MoMo's).
    args: [partners ? { partners: [...partners] } : {}],
    staticSummary: `statement import: yesterday's ${whose}partner statements (collection, disbursement), matched against our payments`,
  };
}

/**
 * Creates the statement import Schedule, or brings it up to date (idempotent; at every worker start
 * with a partner configured, workers/main.ts), as ensureSettlementSchedule does: cron in UTC, overlap
 * SKIP, a missed run taken within a day; a Schedule an operator paused stays paused. `partners`
 * (issue 45): whose statements each run imports, the partners the worker has settings for.
 */
export async function ensureStatementImportSchedule(client: Client, options: { taskQueue: string; cron?: string; partners?: readonly PartnerName[] }): Promise<{ scheduleId: string; created: boolean }> {
  const cron = options.cron ?? DEFAULT_STATEMENT_IMPORT_SCHEDULE;
  return ensureCronSchedule(client, { scheduleId: statementImportScheduleId(options.taskQueue), cron, setting: 'STATEMENT_IMPORT_SCHEDULE', action: action(options.taskQueue, options.partners) });
}
