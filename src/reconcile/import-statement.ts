import type { Orm } from '../persistence/orm';
import { reviewedKind, type PaymentReviewStart } from '../domain/payment-review';
import type { PartnerStatement } from '../rail/momo-statement';
import { importStatement } from '../persistence/reconcile/statement-store';
import { markFlagged, unflaggedBreaks } from '../persistence/reconcile/statement-store';
import type { ImportSummary } from '../domain/break-kinds';
import { dayBefore } from '../domain/statement-import';

/** Flags a payment for review (src/services/payment-review.ts flagPaymentReview, bound to a client). */
export type FlagReview = (start: PaymentReviewStart) => Promise<void>;

/**
 * Imports a statement (idempotent per product and day) and flags every payment with an open break
 * for review (NeedsAttention, the break's reason). A break whose flag failed is flagged again by the
 * next import, of any statement. A break without a payment (missing_here) is a record of its own.
 */
export async function importAndFlag(deps: { orm: Orm; flag: FlagReview }, statement: PartnerStatement, source: string): Promise<ImportSummary> {
  const summary = await importStatement(deps.orm, statement, source);
  await flagOpenBreaks(deps);
  return summary;
}

export async function flagOpenBreaks(deps: { orm: Orm; flag: FlagReview }): Promise<number> {
  let flagged = 0;
  for (const b of await unflaggedBreaks(deps.orm)) {
    // A charge's review follows its request-to-pay, also for a break of its return transfer (a disbursement line).
    const product = reviewedKind(b.paymentId) === 'charge' ? 'collection' : b.product;
    await deps.flag({ paymentId: b.paymentId, product, merchantId: b.merchantId, environment: 'live', source: 'reconciliation', reason: b.reason.slice(0, 500) });
    await markFlagged(deps.orm, b.id);
    flagged++;
  }
  return flagged;
}

/** The UTC day before `now`, YYYY-MM-DD (the Schedule imports yesterday's statement). */
export const yesterdayUtc = dayBefore;

/** Summaries of both products added up (`reconcile run` without --product). */
export function addSummaries(date: string, summaries: readonly ImportSummary[]): Omit<ImportSummary, 'product' | 'already_imported'> & { products: ImportSummary[] } {
  const breaks = { ...summaries[0].breaks };
  for (const s of summaries.slice(1)) for (const [k, n] of Object.entries(s.breaks)) breaks[k as keyof typeof breaks] += n;
  return { date, lines: summaries.reduce((n, s) => n + s.lines, 0), matched: summaries.reduce((n, s) => n + s.matched, 0), breaks, products: [...summaries] };
}
