import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Orm } from '../src/persistence/orm';
import type { RailProduct } from '../src/rail/partner-rail';
import type { PartnerStatement } from '../src/rail/momo-statement';
import { loadPartnerConfig } from '../src/rail/partner-config';
import { flagPaymentReview } from '../src/services/payment-review';
import { importDayAndRefetch } from '../src/reconcile/import-statement';
import { releaseReview } from '../src/reconcile/resolve-break';
import { StatementClient } from '../src/reconcile/statement-client';
import { NO_PARTNER_CONFIGURED, STATEMENT_UNREADABLE, type StatementImportRequest } from '../src/domain/statement-import';
import type { ImportSummary } from '../src/domain/break-kinds';

/** Where statements come from: the partner (src/reconcile/statement-client.ts), or a test's double. */
export interface StatementSource {
  fetch(product: RailProduct, date: string): Promise<PartnerStatement>;
  /** Where a statement came from, as the import records it. */
  source: string;
}

/** The base queue (TEMPORAL_TASK_QUEUE) of an activity's queue (`<base>-live`, `<base>-sandbox`, or `<base>`). */
function baseQueueOf(queue: string): string {
  return queue.replace(/-(live|sandbox)$/, '');
}

/**
 * The statement import's activity. Without `statements`, the partner of PARTNER_* (the worker's own
 * settings) is asked; with none configured, the activity fails without retrying.
 */
export function createReconcileActivities(deps: { orm: Orm; statements?: StatementSource }) {
  let fromEnv: StatementSource | null | undefined;
  const source = (): StatementSource | null => {
    if (deps.statements) return deps.statements;
    if (fromEnv === undefined) {
      const partner = loadPartnerConfig(process.env);
      const client = partner ? new StatementClient(partner) : null;
      fromEnv = client && partner ? { fetch: (product, date) => client.fetch(product, date), source: `partner:${partner.baseUrl}` } : null;
    }
    return fromEnv;
  };
  return {
    async importPartnerStatement(request: StatementImportRequest): Promise<ImportSummary> {
      const statements = source();
      if (!statements) throw ApplicationFailure.nonRetryable('no partner is configured (PARTNER_BASE_URL): no statement to import', NO_PARTNER_CONFIGURED);
      const fetch = (product: RailProduct, date: string) =>
        statements.fetch(product, date).catch((error: unknown) => {
          if (error instanceof Error && error.message.startsWith('statement')) throw ApplicationFailure.nonRetryable(error.message, STATEMENT_UNREADABLE);
          throw error;
        });
      const { client, info } = Context.current();
      const base = baseQueueOf(info.taskQueue);
      // The day asked for, then earlier days still unfinished (partial, or with PENDING lines: issue 43).
      const release = (paymentId: string, reason: string) => releaseReview(client, paymentId, reason);
      return importDayAndRefetch({ orm: deps.orm, flag: (start) => flagPaymentReview(client, start, base), release }, fetch, request, statements.source);
    },
  };
}
