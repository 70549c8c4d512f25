import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Orm } from '../src/persistence/orm';
import type { RailProduct } from '../src/rail/partner-rail';
import type { PartnerStatement } from '../src/rail/momo-statement';
import type { PartnerName } from '../src/domain/rail-routes';
import { flagPaymentReview } from '../src/services/payment-review';
import { importDayAndRefetch } from '../src/reconcile/import-statement';
import { releaseReview } from '../src/reconcile/resolve-break';
import { statementClientFor } from '../src/reconcile/statement-source';
import { NO_PARTNER_CONFIGURED, requestPartner, STATEMENT_UNREADABLE, type StatementImportRequest } from '../src/domain/statement-import';
import type { ImportSummary } from '../src/domain/break-kinds';

/** Where statements come from: a partner (src/reconcile/statement-source.ts), or a test's double. */
export interface StatementSource {
  fetch(product: RailProduct, date: string): Promise<PartnerStatement>;
  /** Where a statement came from, as the import records it. */
  source: string;
}

/** The base queue (TEMPORAL_TASK_QUEUE) of an activity's queue (`<base>-live`, `<base>-sandbox`, or `<base>`). */
function baseQueueOf(queue: string): string {
  return queue.replace(/-(live|sandbox)$/, '');
}

/** The variables that configure each partner, as the activity's errors name them. */
const SETTINGS: Record<PartnerName, string> = { momo: 'PARTNER_BASE_URL', aggregator: 'AGGREGATOR_BASE_URL' };

/**
 * The statement import's activity, one statement of one partner (issue 45: the request's `partner`,
 * MoMo's when it names none). Without `statements`, each partner's settings of the worker's own
 * environment are read (PARTNER_* for MoMo, AGGREGATOR_* for the aggregator); `statements` is MoMo's
 * double in tests. A partner with no settings: the activity fails without retrying, or answers null
 * when the request says `configuredOnly` (the run imports the partners the worker has).
 */
export function createReconcileActivities(deps: { orm: Orm; statements?: StatementSource }) {
  const fromEnv = new Map<PartnerName, StatementSource | null>();
  const source = (partner: PartnerName): StatementSource | null => {
    if (partner === 'momo' && deps.statements) return deps.statements;
    if (!fromEnv.has(partner)) fromEnv.set(partner, statementClientFor(process.env, partner));
    return fromEnv.get(partner)!;
  };
  return {
    async importPartnerStatement(request: StatementImportRequest): Promise<ImportSummary | null> {
      const partner = requestPartner(request);
      const statements = source(partner);
      if (!statements) {
        if (request.configuredOnly) return null;
        throw ApplicationFailure.nonRetryable(
          partner === 'momo' ? 'no partner is configured (PARTNER_BASE_URL): no statement to import' : `the ${partner} is not configured (${SETTINGS[partner]}): no statement of it to import`,
          NO_PARTNER_CONFIGURED,
        );
      }
      const fetch = (product: RailProduct, date: string) =>
        statements.fetch(product, date).catch((error: unknown) => {
          if (error instanceof Error && error.message.startsWith('statement')) throw ApplicationFailure.nonRetryable(error.message, STATEMENT_UNREADABLE);
          throw error;
        });
      const { client, info } = Context.current();
      const base = baseQueueOf(info.taskQueue);
      // The day asked for, then earlier days of that partner still unfinished (partial, or with PENDING lines: issue 43).
      const release = (paymentId: string, reason: string) => releaseReview(client, paymentId, reason);
      return importDayAndRefetch({ orm: deps.orm, flag: (start) => flagPaymentReview(client, start, base), release }, fetch, { product: request.product, date: request.date, partner }, statements.source);
    },
  };
}
