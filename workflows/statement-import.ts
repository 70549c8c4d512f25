import { proxyActivities } from '@temporalio/workflow';
import type { createReconcileActivities } from '../activities/reconcile';
import { dayBefore, NO_PARTNER_CONFIGURED, STATEMENT_UNREADABLE, type StatementImportInput, type StatementImportResult } from '../src/domain/statement-import';
import type { ImportSummary } from '../src/domain/break-kinds';

const { importPartnerStatement } = proxyActivities<ReturnType<typeof createReconcileActivities>>({
  startToCloseTimeout: '5 minutes',
  // A partner that does not answer is asked again for about half a day (then the run fails, visible
  // in the Temporal UI, and `reconcile run --date` imports that day by hand); each import is
  // idempotent per statement, so a retry after a crash changes nothing twice.
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumInterval: '1 hour', maximumAttempts: 16, nonRetryableErrorTypes: [NO_PARTNER_CONFIGURED, STATEMENT_UNREADABLE, 'RailMisconfigured'] },
});

/**
 * Imports the partner's statements of one UTC day (default: yesterday, by the workflow's clock),
 * one product after the other, through the importPartnerStatement activity (fetch, match, record
 * the breaks, flag each break's payment for review). Started daily by the statement import Schedule
 * (src/temporal/statement-import-schedule.ts); docs/operations.md, "Reconciliation".
 */
export async function statementImportWorkflow(input: StatementImportInput = {}): Promise<StatementImportResult> {
  const date = input.date ?? dayBefore(new Date());
  const products = input.products ?? ['collection', 'disbursement'];
  const imports: ImportSummary[] = [];
  for (const product of products) imports.push(await importPartnerStatement({ product, date }));
  return { date, imports };
}
