import type { Orm } from '../persistence/orm';
import { reviewedKind, reviewedProduct, type PaymentReviewStart } from '../domain/payment-review';
import type { PartnerStatement } from '../rail/momo-statement';
import { importStatement } from '../persistence/reconcile/statement-store';
import { markFlagged, paymentsReleasedBy, unfinishedDays, unflaggedBreaks } from '../persistence/reconcile/statement-store';
import type { RailProduct } from '../rail/partner-rail';
import { zeroBreakCounts, type ImportSummary } from '../domain/break-kinds';
import { dayBefore } from '../domain/statement-import';
import type { PartnerName } from '../domain/rail-routes';

/** Flags a payment for review (src/services/payment-review.ts flagPaymentReview, bound to a client). */
export type FlagReview = (start: PaymentReviewStart) => Promise<void>;
/** Tells a payment's review its reconciliation reasons are closed (src/reconcile/resolve-break.ts releaseReview, bound to a client). */
export type ReleaseReview = (paymentId: string, reason: string) => Promise<unknown>;

/**
 * Imports a statement of `partner` (default `momo`; idempotent per partner, product and day) and
 * flags every payment with an open break for review (NeedsAttention, the break's reason). A break
 * whose flag failed is flagged again by the next import, of any statement. A break without a payment
 * (missing_here) is a record of its own.
 */
export async function importAndFlag(deps: { orm: Orm; flag: FlagReview; release?: ReleaseReview }, statement: PartnerStatement, source: string, partner: PartnerName = 'momo'): Promise<ImportSummary> {
  const summary = await importStatement(deps.orm, statement, source, { partner });
  await flagOpenBreaks(deps);
  // A refetch that closed a payment's last breaks (issue 43): its review is told, as `reconcile resolve` does.
  if (deps.release && (summary.closed_breaks ?? 0) > 0) {
    const whose = partner === 'aggregator' ? "the aggregator's" : "the partner's";
    for (const paymentId of await paymentsReleasedBy(deps.orm, partner, statement.product, statement.date)) {
      // A review not told stays NeedsAttention (payments review-close ends it): the import itself stands.
      await deps.release(paymentId, `${whose} ${statement.product} statement of ${statement.date}, fetched again, no longer shows a break for it`).catch(() => undefined);
    }
  }
  return summary;
}

/**
 * Imports a day's statement of a partner (`request.partner`, default `momo`), then fetches again the
 * earlier days of that partner's product whose statement is still unfinished (partial, or with
 * PENDING lines; issue 43), oldest first, at most a month of them: each is refreshed
 * (src/persistence/reconcile/statement-store.ts). A failure of an earlier day is reported in
 * `earlier_days` and does not fail this day's import (the next import tries again).
 */
export async function importDayAndRefetch(
  deps: { orm: Orm; flag: FlagReview; release?: ReleaseReview },
  fetch: (product: RailProduct, date: string) => Promise<PartnerStatement>,
  request: { product: RailProduct; date: string; partner?: PartnerName },
  source: string,
): Promise<ImportSummary> {
  const partner = request.partner ?? 'momo';
  const summary = await importAndFlag(deps, await fetch(request.product, request.date), source, partner);
  const earlier: NonNullable<ImportSummary['earlier_days']> = [];
  for (const date of await unfinishedDays(deps.orm, partner, request.product, request.date)) {
    try {
      const again = await importAndFlag(deps, await fetch(request.product, date), source, partner);
      earlier.push({ date, pending_lines: again.pending_lines ?? 0, closed_breaks: again.closed_breaks ?? 0 });
    } catch (error) {
      earlier.push({ date, error: (error as Error)?.message ?? String(error) });
    }
  }
  return earlier.length > 0 ? { ...summary, earlier_days: earlier } : summary;
}

export async function flagOpenBreaks(deps: { orm: Orm; flag: FlagReview }): Promise<number> {
  let flagged = 0;
  for (const b of await unflaggedBreaks(deps.orm)) {
    // A charge's review follows its request-to-pay, also for a break of its return transfer (a
    // disbursement line); a refund's follows its refund (issue 45), a disbursement line too.
    const product = reviewedKind(b.paymentId) === 'charge' ? 'collection' : reviewedProduct(b.paymentId);
    await deps.flag({ paymentId: b.paymentId, product, merchantId: b.merchantId, environment: 'live', source: 'reconciliation', reason: b.reason.slice(0, 500) });
    await markFlagged(deps.orm, b.id);
    flagged++;
  }
  return flagged;
}

/** The UTC day before `now`, YYYY-MM-DD (the Schedule imports yesterday's statement). */
export const yesterdayUtc = dayBefore;

/**
 * Summaries added up (`reconcile run` without --product, or with more than one partner): the day's
 * lines, matched lines and breaks over every statement; `partners`, whose statements they are (in
 * order, each once); `products`, each statement's own summary (each naming its partner and product).
 */
export function addSummaries(
  date: string,
  summaries: readonly ImportSummary[],
): Omit<ImportSummary, 'product' | 'already_imported' | 'partner'> & { partners: PartnerName[]; products: ImportSummary[] } {
  const breaks = zeroBreakCounts();
  for (const s of summaries) for (const [k, n] of Object.entries(s.breaks)) breaks[k as keyof typeof breaks] += n;
  const partners = [...new Set(summaries.map((s) => s.partner ?? 'momo'))];
  return { date, partners, lines: summaries.reduce((n, s) => n + s.lines, 0), matched: summaries.reduce((n, s) => n + s.matched, 0), breaks, products: [...summaries] };
}
