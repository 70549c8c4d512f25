import type { RailProduct } from '../../partner-rail';
import { maskParty, type PartnerStatement, type StatementLine } from '../../momo-statement';
import { statementAmount } from '../amount';
import type { FakeAggregatorTransaction, FakeBooks } from './books';

/**
 * The fake aggregator's daily statement per product (docs/aggregator.md, "The statement"), in the
 * MoMo statement's format (src/rail/momo-statement.ts) so reconciliation reads both partners alike:
 * every transaction it received that UTC day (by acceptance), with its status now. The collection
 * statement lists the charges, the disbursement statement the transfers and the refunds. A line's
 * referenceId is our reference, its financialTransactionId the aggregator's id (successful lines),
 * its amount the aggregator's record as a decimal string. `0010` lists a transaction twice, `0011`
 * one minor unit more.
 */
export function fakeStatement(books: FakeBooks, product: RailProduct, date: string): PartnerStatement {
  const lines: StatementLine[] = [];
  for (const transaction of books.all(product)) {
    if (new Date(transaction.acceptedAt).toISOString().slice(0, 10) !== date) continue;
    const line = lineOf(transaction);
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
