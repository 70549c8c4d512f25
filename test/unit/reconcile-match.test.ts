import { matchStatement, ourOutcome, type OurPayment } from '../../src/reconcile/match';
import type { PartnerStatement, StatementLine } from '../../src/rail/momo-statement';
import { addSummaries, yesterdayUtc } from '../../src/reconcile/import-statement';
import { zeroBreakCounts } from '../../src/domain/break-kinds';

const DAY = '2026-11-25';
const ref = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function ours(n: number, over: Partial<OurPayment> = {}): OurPayment {
  return { referenceId: ref(n), paymentId: `txn_${n}`, merchantId: 'mer_1', amount: 15000, currency: 'GHS', status: 'succeeded', environment: 'live', sentDay: DAY, ...over };
}

function line(n: number, over: Partial<StatementLine> = {}): StatementLine {
  return { referenceId: ref(n), financialTransactionId: `ft${n}`, externalId: `txn_${n}`, amount: '150.00', currency: 'GHS', status: 'SUCCESSFUL', reason: null, party: '****4567', time: `${DAY}T10:00:00.000Z`, completedAt: `${DAY}T10:00:01.000Z`, ...over };
}

const statement = (lines: StatementLine[]): PartnerStatement => ({ product: 'collection', date: DAY, lines });
const kinds = (s: PartnerStatement, o: OurPayment[]) => matchStatement(s, o).breaks.map((b) => [b.kind, b.paymentId]);

describe('matching a statement with our payments', () => {
  test('a clean statement: every line matched, no break, the partner transaction ids to keep', () => {
    const result = matchStatement(statement([line(1), line(2, { status: 'FAILED', financialTransactionId: null, reason: 'NOT_ENOUGH_FUNDS' })]), [ours(1), ours(2, { status: 'failed' })]);
    expect(result.breaks).toEqual([]);
    expect(result.matched).toBe(2);
    expect(result.transactionIds).toEqual([{ paymentId: 'txn_1', financialTransactionId: 'ft1' }]);
    expect(result.lines.map((l) => l.paymentId)).toEqual(['txn_1', 'txn_2']);
  });

  test('a return transfer of late money (issue 43): its line matches the charge it returns, its transaction id is not the charge\'s, a difference names the return', () => {
    const disbursement: PartnerStatement = { product: 'disbursement', date: DAY, lines: [line(1), line(2, { status: 'PENDING', financialTransactionId: null })] };
    const result = matchStatement(disbursement, [ours(1, { returnOf: true }), ours(2, { returnOf: true, paymentId: 'txn_9', status: 'succeeded' })]);
    expect(result.lines.map((l) => l.paymentId)).toEqual(['txn_1', 'txn_9']);
    expect(result.matched).toBe(1);
    expect(result.transactionIds).toEqual([]);
    expect(result.breaks).toEqual([expect.objectContaining({ kind: 'status_mismatch', paymentId: 'txn_9', reason: 'the partner says PENDING, the return transfer of txn_9 is succeeded' })]);
    expect(kinds(disbursement, [])).toEqual([
      ['missing_here', null],
      ['missing_here', null],
    ]);
  });

  test('missing_here: a line for a reference that is none of ours (partner amount in minor units)', () => {
    const result = matchStatement(statement([line(9, { amount: '5.00' })]), []);
    expect(result.breaks).toEqual([expect.objectContaining({ kind: 'missing_here', paymentId: null, amount: 500, currency: 'GHS', partnerStatus: 'SUCCESSFUL' })]);
    expect(result.matched).toBe(0);
  });

  test('missing_there: ours sent that day (succeeded or still open) and not listed; failed, expired, other days and the sandbox are not', () => {
    const o = [ours(1), ours(2, { status: 'awaiting_action' }), ours(3, { status: 'failed' }), ours(4, { status: 'expired' }), ours(5, { sentDay: '2026-11-24' }), ours(6, { environment: 'sandbox' })];
    expect(kinds(statement([]), o)).toEqual([
      ['missing_there', 'txn_1'],
      ['missing_there', 'txn_2'],
    ]);
  });

  test('amount_mismatch: one minor unit more; an unreadable amount too', () => {
    expect(kinds(statement([line(1, { amount: '150.01' })]), [ours(1)])).toEqual([['amount_mismatch', 'txn_1']]);
    expect(kinds(statement([line(1, { amount: 'abc' })]), [ours(1)])).toEqual([['amount_mismatch', 'txn_1']]);
  });

  test('currency_mismatch (the amount is then not compared)', () => {
    const result = matchStatement(statement([line(1, { currency: 'NGN', amount: '1.00' })]), [ours(1)]);
    expect(result.breaks).toEqual([expect.objectContaining({ kind: 'currency_mismatch', amount: 15000, currency: 'GHS', partnerCurrency: 'NGN' })]);
  });

  test.each([
    ['SUCCESSFUL', 'expired'],
    ['SUCCESSFUL', 'failed'],
    ['FAILED', 'succeeded'],
    ['PENDING', 'expired'],
    ['SUCCESSFUL', 'awaiting_action'],
  ] as const)('status_mismatch: the partner says %s, ours is %s', (partner, our) => {
    expect(kinds(statement([line(1, { status: partner })]), [ours(1, { status: our })])).toEqual([['status_mismatch', 'txn_1']]);
  });

  test('PENDING at the partner and still open here: not matched, a pending_at_partner break (issue 43)', () => {
    const result = matchStatement(statement([line(1, { status: 'PENDING', financialTransactionId: null })]), [ours(1, { status: 'pending' })]);
    expect(result.breaks).toEqual([expect.objectContaining({ kind: 'pending_at_partner', paymentId: 'txn_1', partnerStatus: 'PENDING', ourStatus: 'pending' })]);
    expect(result.matched).toBe(0);
    expect(result.transactionIds).toEqual([]);
  });

  test('duplicate: the same reference listed twice makes one break; the first line still matches', () => {
    const result = matchStatement(statement([line(1), line(1), line(1)]), [ours(1)]);
    expect(result.breaks.map((b) => [b.kind, b.paymentId])).toEqual([['duplicate', 'txn_1']]);
    expect(result.matched).toBe(1);
  });

  test('references are matched whatever their case; several breaks of one payment are each recorded', () => {
    const result = matchStatement(statement([line(1, { referenceId: ref(1).toUpperCase(), amount: '1.00', status: 'FAILED' })]), [ours(1)]);
    expect(result.breaks.map((b) => b.kind).sort()).toEqual(['amount_mismatch', 'status_mismatch']);
  });

  test('our outcome: money moved, did not move, or open', () => {
    expect(['succeeded', 'reversed', 'paid'].map(ourOutcome)).toEqual(['SUCCESSFUL', 'SUCCESSFUL', 'SUCCESSFUL']);
    expect(['failed', 'expired'].map(ourOutcome)).toEqual(['FAILED', 'FAILED']);
    expect(['pending', 'awaiting_action', 'held_for_review'].map(ourOutcome)).toEqual(['OPEN', 'OPEN', 'OPEN']);
  });

  test('yesterday in UTC, and both products summed', () => {
    expect(yesterdayUtc(new Date('2026-03-01T00:30:00Z'))).toBe('2026-02-28');
    const a = { date: DAY, product: 'collection' as const, lines: 3, matched: 2, breaks: { ...zeroBreakCounts(), duplicate: 1 }, already_imported: false };
    const b = { ...a, product: 'disbursement' as const, breaks: { ...zeroBreakCounts(), duplicate: 2, missing_here: 1 } };
    expect(addSummaries(DAY, [a, b])).toMatchObject({ date: DAY, lines: 6, matched: 4, breaks: { duplicate: 3, missing_here: 1, missing_there: 0 } });
  });
});
