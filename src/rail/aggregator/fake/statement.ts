import type { RailProduct } from '../../partner-rail';
import { maskParty, type PartnerStatement, type StatementLine } from '../../momo-statement';
import { statementAmount } from '../amount';
import type { FakeAggregatorTransaction, FakeBooks } from './books';
import type { StatementAmendment } from '../../fake-partner/statement';

export type { StatementAmendment } from '../../fake-partner/statement';

/**
 * A test's amendments of a fake aggregator's statement lines (as the MoMo fake's `amendStatement`),
 * per books and `<product>:<reference>`: kept beside the books, read by every statement they serve.
 */
const AMENDMENTS = new WeakMap<FakeBooks, Map<string, StatementAmendment>>();
const keyOf = (product: RailProduct, referenceId: string) => `${product}:${referenceId.trim().toLowerCase()}`;

/** Amends a reference's line on every statement served from now (`omit`, another `amount`, `currency` or `status`); amendments of one line add up. */
export function amendStatement(books: FakeBooks, product: RailProduct, referenceId: string, amendment: StatementAmendment): void {
  let amendments = AMENDMENTS.get(books);
  if (!amendments) AMENDMENTS.set(books, (amendments = new Map()));
  amendments.set(keyOf(product, referenceId), { ...amendments.get(keyOf(product, referenceId)), ...amendment });
}

/**
 * The fake aggregator's daily statement per product (docs/aggregator.md, "The statement"), in the
 * MoMo statement's format (src/rail/momo-statement.ts) so reconciliation reads both partners alike:
 * every transaction it received that UTC day (by acceptance), with its status now. The collection
 * statement lists the charges, the disbursement statement the transfers and the refunds. A line's
 * referenceId is our reference, its financialTransactionId the aggregator's id (successful lines),
 * its amount the aggregator's record as a decimal string. `0010` lists a transaction twice, `0011`
 * one minor unit more. A line a test amended (amendStatement) is as amended.
 */
export function fakeStatement(books: FakeBooks, product: RailProduct, date: string): PartnerStatement {
  const lines: StatementLine[] = [];
  for (const transaction of books.all(product)) {
    if (new Date(transaction.acceptedAt).toISOString().slice(0, 10) !== date) continue;
    const amendment = AMENDMENTS.get(books)?.get(keyOf(product, transaction.referenceId)) ?? {};
    if (amendment.omit) continue;
    const line = { ...lineOf(transaction), ...amended(amendment) };
    lines.push(line);
    if (transaction.behaviour === 'statement_twice') lines.push({ ...line });
  }
  return { product, date, lines };
}

function lineOf(t: FakeAggregatorTransaction): StatementLine {
  const amount = t.behaviour === 'statement_amount_plus_one' ? t.amount + 1 : t.amount;
  return {
    referenceId: t.referenceId,
    financialTransactionId: t.status === 'successful' ? String(t.id) : null,
    externalId: t.externalId,
    amount: statementAmount(amount, t.currency),
    currency: t.currency,
    status: t.status === 'successful' ? 'SUCCESSFUL' : t.status === 'failed' ? 'FAILED' : 'PENDING',
    reason: t.failure?.code ?? null,
    party: maskParty(t.partyId),
    time: new Date(t.acceptedAt).toISOString(),
    completedAt: t.completedAt === null ? null : new Date(t.completedAt).toISOString(),
  };
}

function amended(amendment: StatementAmendment): Partial<StatementLine> {
  const out: Partial<StatementLine> = {};
  if (amendment.currency !== undefined) out.currency = amendment.currency;
  if (amendment.amount !== undefined) out.amount = amendment.amount;
  if (amendment.status !== undefined) out.status = amendment.status;
  return out;
}
