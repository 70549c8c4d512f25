import { isStatementDate, maskParty, parseStatementCsv, parseStatementFile, statementToCsv, type PartnerStatement } from '../../src/rail/momo-statement';

const line = {
  referenceId: '00000000-0000-4000-8000-000000000001',
  financialTransactionId: '123456789',
  externalId: 'txn_1',
  amount: '150.00',
  currency: 'GHS',
  status: 'SUCCESSFUL' as const,
  reason: null,
  party: '****4567',
  time: '2026-11-25T10:00:00.000Z',
  completedAt: '2026-11-25T10:00:01.000Z',
};
const statement: PartnerStatement = { product: 'collection', date: '2026-11-25', lines: [line, { ...line, referenceId: '00000000-0000-4000-8000-000000000002', externalId: 'txn_"2", quoted', status: 'FAILED', financialTransactionId: null, reason: 'NOT_ENOUGH_FUNDS', completedAt: null }] };

describe("the partner's statement format (src/rail/momo-statement.ts)", () => {
  test('CSV round trip: header, quoting, empty fields as null; JSON and CSV files read alike (a BOM too)', () => {
    const csv = statementToCsv(statement);
    expect(csv.split('\r\n')[0]).toBe('product,statement_date,reference_id,financial_transaction_id,external_id,amount,currency,status,reason,party,time,completed_at');
    expect(parseStatementCsv(csv)).toEqual(statement);
    expect(parseStatementFile('\uFEFF' + csv)).toEqual(statement);
    expect(parseStatementFile(JSON.stringify(statement))).toEqual(statement);
  });

  test('an empty CSV file takes its product and day from the operator, else is refused', () => {
    const header = statementToCsv({ ...statement, lines: [] });
    expect(parseStatementCsv(header, { product: 'disbursement', date: '2026-11-24' })).toEqual({ product: 'disbursement', date: '2026-11-24', lines: [] });
    expect(() => parseStatementCsv(header)).toThrow(/--product/);
  });

  test('refused: two days in one file, an unknown status, a currency that is no code, a missing reference', () => {
    const csv = statementToCsv(statement);
    expect(() => parseStatementCsv(csv.replace(/2026-11-25,0{8}-0{4}-4000-8000-000000000002/, '2026-11-24,00000000-0000-4000-8000-000000000002'))).toThrow(/one product and one day/);
    expect(() => parseStatementFile(JSON.stringify({ ...statement, lines: [{ ...line, status: 'DONE' }] }))).toThrow(/status "DONE"/);
    expect(() => parseStatementFile(JSON.stringify({ ...statement, lines: [{ ...line, currency: 'cedi' }] }))).toThrow(/currency/);
    expect(() => parseStatementFile(JSON.stringify({ ...statement, lines: [{ ...line, referenceId: '' }] }))).toThrow(/referenceId is missing/);
    expect(() => parseStatementFile(JSON.stringify({ ...statement, date: '2026-02-30' }))).toThrow(/YYYY-MM-DD/);
  });

  test('days and masks', () => {
    expect(isStatementDate('2026-02-28')).toBe(true);
    expect(isStatementDate('2026-02-29')).toBe(false);
    expect(isStatementDate('26-2-1')).toBe(false);
    expect(maskParty('233241234567')).toBe('****4567');
  });
});
