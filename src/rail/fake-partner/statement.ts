import type { RailProduct } from '../partner-rail';
import { PARTY_FIELD } from '../momo-protocol';
import { formatMomoAmount, parseMomoAmount } from '../momo-amount';
import { maskParty, type PartnerStatement, type StatementLine } from '../momo-statement';
import type { FakeTransaction, FakeTransactions } from './transactions';

/** What a test changes in a statement line of a reference (a knob for each kind of break). */
export interface StatementAmendment {
  /** Leave the line out (reconciliation: missing_there). */
  omit?: boolean;
  /** Another currency on the line (currency_mismatch). */
  currency?: string;
  /** Another amount string on the line (amount_mismatch). */
  amount?: string;
  /** Another status on the line (status_mismatch). */
  status?: StatementLine['status'];
}

/**
 * The fake partner's statements: per product and UTC day, every transaction it received that day
 * (by acceptance time; a disbursement's transfers and refunds, a refund's party the payer it pays
 * back), with its status now, as docs/partner-rail.md ("The statement") names the
 * format. Behaviours `0010` (listed twice) and `0011` (one minor unit more) play here, and a test
 * can amend a reference's line or add a line of its own.
 */
export class FakeStatements {
  private readonly amendments = new Map<string, StatementAmendment>();
  private readonly extra: Array<{ product: RailProduct; date: string; line: StatementLine }> = [];

  constructor(private readonly transactions: FakeTransactions) {}

  private key(product: RailProduct, referenceId: string): string {
    return `${product}:${referenceId.toLowerCase()}`;
  }

  amend(product: RailProduct, referenceId: string, amendment: StatementAmendment): void {
    this.amendments.set(this.key(product, referenceId), { ...this.amendments.get(this.key(product, referenceId)), ...amendment });
  }

  /** A line for a transaction we never sent (reconciliation: missing_here); its day is its `time`'s. */
  addLine(product: RailProduct, line: StatementLine): void {
    this.extra.push({ product, date: line.time.slice(0, 10), line });
  }

  statement(product: RailProduct, date: string): PartnerStatement {
    const lines: StatementLine[] = [];
    for (const transaction of this.transactions.all(product)) {
      if (new Date(transaction.acceptedAt).toISOString().slice(0, 10) !== date) continue;
      const amendment = this.amendments.get(this.key(product, transaction.referenceId)) ?? {};
      if (amendment.omit) continue;
      const line = { ...lineOf(transaction), ...pick(amendment) };
      lines.push(line);
      if (transaction.behaviour === 'statement_twice') lines.push({ ...line });
    }
    for (const added of this.extra) if (added.product === product && added.date === date) lines.push({ ...added.line });
    return { product, date, lines };
  }
}

function pick(amendment: StatementAmendment): Partial<StatementLine> {
  const out: Partial<StatementLine> = {};
  if (amendment.currency !== undefined) out.currency = amendment.currency;
  if (amendment.amount !== undefined) out.amount = amendment.amount;
  if (amendment.status !== undefined) out.status = amendment.status;
  return out;
}

function lineOf(transaction: FakeTransaction): StatementLine {
  const { state } = transaction;
  const party = state[PARTY_FIELD[transaction.product]]?.partyId ?? '';
  let amount = state.amount;
  if (transaction.behaviour === 'statement_amount_plus_one') {
    const minor = parseMomoAmount(state.amount, state.currency);
    if (minor !== undefined) amount = formatMomoAmount(minor + 1, state.currency);
  }
  return {
    referenceId: transaction.referenceId,
    financialTransactionId: state.financialTransactionId ?? null,
    externalId: state.externalId,
    amount,
    currency: state.currency,
    status: state.status,
    reason: state.status === 'FAILED' ? (state.reason ?? null) : null,
    party: maskParty(party),
    time: new Date(transaction.acceptedAt).toISOString(),
    completedAt: transaction.completedAt === undefined ? null : new Date(transaction.completedAt).toISOString(),
  };
}
