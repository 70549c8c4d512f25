import type { PartnerStatement, StatementLine } from '../rail/momo-statement';
import { parseMomoAmount } from '../rail/momo-amount';
import type { BreakKind } from '../domain/break-kinds';

/** One payment of ours that went to the partner rail, as matching needs it. */
export interface OurPayment {
  referenceId: string;
  paymentId: string;
  merchantId: string;
  /** Minor units. */
  amount: number;
  currency: string;
  /** Our status (charge, payout or settlement). */
  status: string;
  environment: string;
  /** The UTC day its rail reference was made (the day it was sent), YYYY-MM-DD. */
  sentDay: string;
  /**
   * A return transfer of `paymentId`'s late money (issue 43, finding 2), not the payment's own request:
   * its line matches the payment's review; `status` is the return's. The partner's transaction id of a
   * return is not the payment's.
   */
  returnOf?: true;
}

export interface FoundBreak {
  kind: BreakKind;
  referenceId: string;
  paymentId: string | null;
  merchantId: string | null;
  /** Minor units: ours when the payment is known, else the partner's (null when unreadable). */
  amount: number | null;
  currency: string | null;
  partnerAmount: string | null;
  partnerCurrency: string | null;
  partnerStatus: string | null;
  ourStatus: string | null;
  reason: string;
}

export interface LineMatch {
  lineNo: number;
  line: StatementLine;
  paymentId: string | null;
  /** The line's amount in minor units of its currency (null when unreadable). */
  amountMinor: number | null;
}

export interface MatchResult {
  lines: LineMatch[];
  /** Lines matched to a payment with amount, currency and status agreeing (a repeated line never counts). */
  matched: number;
  breaks: FoundBreak[];
  /** Partner transaction ids to keep on the payments' rail references. */
  transactionIds: Array<{ paymentId: string; financialTransactionId: string }>;
}

/** Our status as the partner would say it: money moved, money did not move, or not decided yet. */
export function ourOutcome(status: string): 'SUCCESSFUL' | 'FAILED' | 'OPEN' {
  if (status === 'succeeded' || status === 'reversed' || status === 'paid') return 'SUCCESSFUL';
  if (status === 'failed' || status === 'expired') return 'FAILED';
  return 'OPEN';
}

function key(referenceId: string): string {
  return referenceId.trim().toLowerCase();
}

function statusDiffers(partner: StatementLine['status'], ours: string): boolean {
  const outcome = ourOutcome(ours);
  if (partner === 'PENDING') return outcome !== 'OPEN';
  return outcome !== partner;
}

/**
 * Matches a statement line by line with our payments (pure; src/reconcile/import-statement.ts does
 * the reading and writing). `ours` holds the payments the lines name and those of the statement's
 * product whose reference was made on its day (in live). Breaks:
 *
 * - missing_here: a line whose reference is none of ours (a return transfer of late money is ours:
 *   `returnOf`, under the charge it returns);
 * - duplicate: a reference listed more than once (one break; the first line is checked as usual);
 * - currency_mismatch, else amount_mismatch: the line's currency or amount differs from ours;
 * - status_mismatch: the partner's status differs from ours (SUCCESSFUL against failed or expired,
 *   FAILED against succeeded, PENDING against any final status of ours, or a final status against a
 *   payment of ours still open);
 * - pending_at_partner (issue 43): the partner still lists PENDING a payment of ours still open: not
 *   matched (nothing is final yet); the day is fetched again until the line is final;
 * - missing_there: a payment of ours sent that day that the statement does not list, unless it ended
 *   failed or expired (a partner refusing a submission keeps nothing, so lists nothing).
 */
export function matchStatement(statement: PartnerStatement, ours: readonly OurPayment[]): MatchResult {
  const byReference = new Map(ours.map((p) => [key(p.referenceId), p]));
  const seen = new Map<string, number>();
  const breaks = new Map<string, FoundBreak>();
  const add = (found: FoundBreak) => {
    const id = `${found.kind}:${key(found.referenceId)}`;
    if (!breaks.has(id)) breaks.set(id, found);
  };
  const lines: LineMatch[] = [];
  const transactionIds: MatchResult['transactionIds'] = [];
  let matched = 0;

  statement.lines.forEach((line, index) => {
    const ref = key(line.referenceId);
    const payment = byReference.get(ref) ?? null;
    const amountMinor = parseMomoAmount(line.amount, line.currency) ?? null;
    lines.push({ lineNo: index + 1, line, paymentId: payment?.paymentId ?? null, amountMinor });
    const partner = { partnerAmount: line.amount, partnerCurrency: line.currency, partnerStatus: line.status };
    const count = (seen.get(ref) ?? 0) + 1;
    seen.set(ref, count);
    if (count > 1) {
      add({
        kind: 'duplicate',
        referenceId: line.referenceId,
        paymentId: payment?.paymentId ?? null,
        merchantId: payment?.merchantId ?? null,
        amount: payment?.amount ?? amountMinor,
        currency: payment?.currency ?? line.currency,
        ...partner,
        ourStatus: payment?.status ?? null,
        reason: `the statement lists reference ${line.referenceId} more than once (line ${index + 1})`,
      });
      return;
    }
    if (!payment) {
      add({
        kind: 'missing_here',
        referenceId: line.referenceId,
        paymentId: null,
        merchantId: null,
        amount: amountMinor,
        currency: line.currency,
        ...partner,
        ourStatus: null,
        reason: `the partner lists ${line.status} ${line.amount} ${line.currency} for reference ${line.referenceId}, which is none of our ${statement.product} payments`,
      });
      return;
    }
    const base = { referenceId: line.referenceId, paymentId: payment.paymentId, merchantId: payment.merchantId, amount: payment.amount, currency: payment.currency, ...partner, ourStatus: payment.status };
    const whose = payment.returnOf ? `the return transfer of ${payment.paymentId} is` : 'ours is';
    let clean = true;
    if (line.currency !== payment.currency) {
      clean = false;
      add({ ...base, kind: 'currency_mismatch', reason: `the partner lists ${line.currency}, ${whose} ${payment.currency}` });
    } else if (amountMinor !== payment.amount) {
      clean = false;
      add({ ...base, kind: 'amount_mismatch', reason: `the partner lists ${line.amount} ${line.currency} (${amountMinor ?? 'unreadable'} minor units), ${whose} ${payment.amount}` });
    }
    if (statusDiffers(line.status, payment.status)) {
      clean = false;
      add({ ...base, kind: 'status_mismatch', reason: `the partner says ${line.status}${line.reason ? ` (${line.reason})` : ''}, ${whose} ${payment.status}` });
    } else if (line.status === 'PENDING') {
      clean = false;
      add({ ...base, kind: 'pending_at_partner', reason: `the partner still lists it PENDING, ${whose} ${payment.status}: the statement of ${statement.date} is fetched again until it is final` });
    }
    if (line.status === 'SUCCESSFUL' && line.financialTransactionId && !payment.returnOf) transactionIds.push({ paymentId: payment.paymentId, financialTransactionId: line.financialTransactionId });
    if (clean) matched++;
  });

  for (const payment of ours) {
    if (seen.has(key(payment.referenceId))) continue;
    if (payment.sentDay !== statement.date || payment.environment !== 'live') continue;
    if (ourOutcome(payment.status) === 'FAILED') continue;
    add({
      kind: 'missing_there',
      referenceId: payment.referenceId,
      paymentId: payment.paymentId,
      merchantId: payment.merchantId,
      amount: payment.amount,
      currency: payment.currency,
      partnerAmount: null,
      partnerCurrency: null,
      partnerStatus: null,
      ourStatus: payment.status,
      reason: `${payment.returnOf ? `the return transfer of ${payment.paymentId} is` : 'ours is'} ${payment.status} (sent ${payment.sentDay}), and the partner's ${statement.product} statement of ${statement.date} does not list it`,
    });
  }
  return { lines, matched, breaks: [...breaks.values()], transactionIds };
}
