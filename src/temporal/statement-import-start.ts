import type { Client } from '@temporalio/client';
import { randomBase62 } from '../support/new-id';
import { STATEMENT_IMPORT_WORKFLOW_TYPE, type StatementImportInput, type StatementImportResult } from '../domain/statement-import';
import { taskQueueFor } from './task-queues';

type ImportWorkflowFn = (input?: StatementImportInput) => Promise<StatementImportResult>;

/**
 * `reconcile run` without PARTNER_* settings of its own: the import runs on the worker (its live
 * queue), with the worker's PARTNER_* settings (`npm start` hands its fake partner's to the worker),
 * under its own id; waits for its result. Issue 45: `partners` names whose statements (with
 * `configuredOnly`, those of them the worker has settings for).
 */
export async function importStatementsNow(client: Client, baseQueue: string, input: StatementImportInput): Promise<StatementImportResult> {
  const handle = await client.workflow.start<ImportWorkflowFn>(STATEMENT_IMPORT_WORKFLOW_TYPE, {
    workflowId: `statement-import-${randomBase62(16)}`,
    taskQueue: taskQueueFor(baseQueue, 'live'),
    args: [input],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    staticSummary: `statement import by hand: ${input.date ?? 'yesterday'} ${input.products?.join(', ') ?? 'collection, disbursement'}${input.partners ? ` (${input.configuredOnly ? "the worker's partners among " : ''}${input.partners.join(', ')})` : ''}`,
  });
  return handle.result();
}
