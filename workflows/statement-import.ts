import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
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
 * Imports the partners' statements of one UTC day (default: yesterday, by the workflow's clock),
 * one product after the other, through the importPartnerStatement activity (fetch, match, record
 * the breaks, flag each break's payment for review). Started daily by the statement import Schedule
 * (src/temporal/statement-import-schedule.ts); docs/operations.md, "Reconciliation".
 *
 * Per partner (issue 45): with `partners`, each partner's products in turn, each request naming its
 * partner. Without (every run started before, and a Schedule not yet brought up to date): MoMo's,
 * with the very requests of before (no partner: the activity reads MoMo), so those runs replay as
 * they were recorded.
 */
export async function statementImportWorkflow(input: StatementImportInput = {}): Promise<StatementImportResult> {
  const date = input.date ?? dayBefore(new Date());
  const products = input.products ?? ['collection', 'disbursement'];
  const imports: ImportSummary[] = [];
  if (input.partners === undefined) {
    for (const product of products) imports.push((await importPartnerStatement({ product, date }))!);
    return { date, imports };
  }
  for (const partner of input.partners) {
    for (const product of products) {
      const summary = await importPartnerStatement({ product, date, partner, ...(input.configuredOnly ? { configuredOnly: true } : {}) });
      if (summary) imports.push(summary);
    }
  }
  if (imports.length === 0 && input.configuredOnly && input.partners.length > 0) {
    throw ApplicationFailure.nonRetryable(`no partner is configured on the worker (asked: ${input.partners.join(', ')}): no statement to import`, NO_PARTNER_CONFIGURED);
  }
  return { date, imports };
}
