import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { randomBase62 } from '../../../src/support/new-id';
import { taskQueueFor } from '../../../src/temporal/task-queues';
import { zeroBreakCounts, type ImportSummary } from '../../../src/domain/break-kinds';
import { NO_PARTNER_CONFIGURED, type StatementImportInput, type StatementImportRequest } from '../../../src/domain/statement-import';
import type { statementImportWorkflow } from '../../../workflows/statement-import';
import { startTimeSkippingWorkers, type TimeSkippingWorkers } from './time-skipping-workers';

/**
 * The import activity in memory: each call logged; `failures` transient failures first, or no partner
 * at all; `unconfigured`: partners the worker has no settings for (as activities/reconcile.ts: null
 * with `configuredOnly`, else NoPartnerConfigured).
 */
export class FakeStatementImports {
  readonly calls: StatementImportRequest[] = [];
  failures = 0;
  noPartner = false;
  unconfigured = new Set<string>();

  readonly activities = {
    importPartnerStatement: async (request: StatementImportRequest): Promise<ImportSummary | null> => {
      this.calls.push(request);
      if (this.unconfigured.has(request.partner ?? 'momo')) {
        if (request.configuredOnly) return null;
        throw ApplicationFailure.nonRetryable(`the ${request.partner} is not configured`, NO_PARTNER_CONFIGURED);
      }
      if (this.noPartner) throw ApplicationFailure.nonRetryable('no partner is configured (PARTNER_BASE_URL): no statement to import', NO_PARTNER_CONFIGURED);
      if (this.failures > 0) {
        this.failures--;
        throw new Error('GET /collection/v1_0/statement: timeout: no complete answer within 5000 ms');
      }
      return { date: request.date, ...(request.partner ? { partner: request.partner } : {}), product: request.product, lines: 2, matched: 1, breaks: { ...zeroBreakCounts(), duplicate: 1 }, already_imported: false };
    },
  };
}

export interface StatementImportTestEnv extends TimeSkippingWorkers {
  imports: FakeStatementImports;
  start(input: StatementImportInput, workflowId?: string): Promise<WorkflowHandleWithFirstExecutionRunId<typeof statementImportWorkflow>>;
}

/** statementImportWorkflow on the time-skipping test server, on the live queue as the Schedule starts it, with the activity in memory. */
export async function startStatementImportEnv(): Promise<StatementImportTestEnv> {
  const imports = new FakeStatementImports();
  const workers = await startTimeSkippingWorkers('stmt', imports.activities);
  return {
    ...workers,
    imports,
    start: (input, workflowId = `statement-import-${randomBase62(10)}`) =>
      workers.env.client.workflow.start<typeof statementImportWorkflow>('statementImportWorkflow', { workflowId, taskQueue: taskQueueFor(workers.taskQueue, 'live'), args: [input] }),
  };
}
