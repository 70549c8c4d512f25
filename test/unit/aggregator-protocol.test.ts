import fs from 'node:fs';
import path from 'node:path';
import { fromAggregatorAmount, statementAmount, toAggregatorAmount } from '../../src/rail/aggregator/amount';
import { AGGREGATOR_ERRORS, classifyError, errorCodeOf, isDuplicateAnswer, reasonOf, type AggregatorErrorEntry } from '../../src/rail/aggregator/errors';
import { chargeTarget, transferTarget } from '../../src/rail/aggregator/party';
import { parseAggregatorStatus } from '../../src/rail/aggregator/status';
import { instructionsOf } from '../../src/rail/aggregator/instructions';
import { BEHAVIOUR_BY_SUFFIX, CARD_BEHAVIOUR_BY_SUFFIX } from '../../src/rail/aggregator/fake';
import { RailRequestInvalid } from '../../src/rail/rail-errors';

const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/aggregator.md'), 'utf8');
/** The rows of the markdown table whose header row starts with `header`. */
function tableRows(header: string): string[][] {
  const section = doc.slice(doc.indexOf(header));
  const table = section.slice(0, section.indexOf('\n\n'));
  return table.split('\n').slice(2).map((row) => row.split('|').slice(1, -1).map((cell) => cell.trim()));
}

describe('amounts on the wire', () => {
  test('2-decimal currencies: minor units to a number of major units and back, exactly', () => {
    const cases: Array<[number, number]> = [[15_005, 150.05], [15_000, 150], [1, 0.01], [10, 0.1], [99, 0.99], [123_456_789_012, 1_234_567_890.12]];
    for (const [minor, wire] of cases) {
      expect(toAggregatorAmount(minor, 'GHS')).toBe(wire);
      expect(JSON.stringify(toAggregatorAmount(minor, 'GHS'))).toBe(String(wire));
      expect(fromAggregatorAmount(JSON.parse(JSON.stringify(wire)), 'GHS')).toBe(minor);
    }
    // Floats that are not the shortest form of a two-decimal amount never turn into one silently.
    expect(fromAggregatorAmount(0.1 + 0.2, 'GHS')).toBeUndefined();
    expect(fromAggregatorAmount(150.055, 'GHS')).toBeUndefined();
    expect(fromAggregatorAmount('150.05', 'GHS')).toBe(15_005);
    expect(fromAggregatorAmount('150.050', 'GHS')).toBe(15_005);
  });

  test('0-decimal currencies: the number is the minor units; a fraction is refused', () => {
    expect(toAggregatorAmount(5_000, 'UGX')).toBe(5_000);
    expect(toAggregatorAmount(7, 'RWF')).toBe(7);
    expect(toAggregatorAmount(2_500, 'XOF')).toBe(2_500);
    expect(fromAggregatorAmount(5_000, 'UGX')).toBe(5_000);
    expect(fromAggregatorAmount(5_000.5, 'UGX')).toBeUndefined();
    expect(statementAmount(5_000, 'UGX')).toBe('5000');
    expect(statementAmount(0, 'UGX')).toBe('0');
    expect(statementAmount(0, 'GHS')).toBe('0.00');
  });

  test('what cannot be sent exactly is refused; what cannot be read is undefined', () => {
    for (const [minor, currency] of [[0, 'GHS'], [-5, 'GHS'], [1.5, 'GHS'], [100, 'XAF'], [100, 'ZMW'], [1_000_000_000_000_000, 'GHS']] as const) {
      expect(() => toAggregatorAmount(minor, currency)).toThrow(RailRequestInvalid);
    }
    for (const value of [-1, Number.NaN, Infinity, 1e21, '1e3', '', null, undefined, {}, '12,50']) expect(fromAggregatorAmount(value, 'GHS')).toBeUndefined();
    expect(fromAggregatorAmount(10, 'XAF')).toBeUndefined();
  });
});

describe('parties', () => {
  test("a wallet's charge type and network by currency and prefix; a bank account as a bank transfer", () => {
    expect(chargeTarget({ partyIdType: 'MSISDN', partyId: '233241234567' }, 'GHS')).toEqual({ type: 'mobile_money_ghana', fields: { phone_number: '233241234567', network: 'MTN' } });
    expect(chargeTarget({ partyIdType: 'MSISDN', partyId: '233501234567' }, 'GHS').fields.network).toBe('VODAFONE');
    expect(chargeTarget({ partyIdType: 'MSISDN', partyId: '233571234567' }, 'GHS').fields.network).toBe('TIGO');
    expect(chargeTarget({ partyIdType: 'MSISDN', partyId: '+254712345678' }, 'KES')).toEqual({ type: 'mpesa', fields: { phone_number: '254712345678' } });
    expect(chargeTarget({ partyIdType: 'MSISDN', partyId: '250781234567' }, 'RWF').type).toBe('mobile_money_rwanda');
    expect(chargeTarget({ partyIdType: 'MSISDN', partyId: '225071234567' }, 'XOF')).toEqual({ type: 'mobile_money_franco', fields: { phone_number: '225071234567', country: 'CI' } });
    expect(chargeTarget({ partyIdType: 'BANK_ACCOUNT', partyId: 'STANBIC-GH: 0100 2003 00' }, 'GHS')).toEqual({ type: 'bank_transfer', fields: { account_bank: 'STANBIC-GH', account_number: '0100200300' } });
  });

  test("a transfer's account_bank: the bank, or the wallet's network", () => {
    expect(transferTarget({ partyIdType: 'BANK_ACCOUNT', partyId: 'GCB:1234567890' }, 'GHS')).toEqual({ account_bank: 'GCB', account_number: '1234567890' });
    expect(transferTarget({ partyIdType: 'MSISDN', partyId: '233261234567' }, 'GHS')).toEqual({ account_bank: 'AIRTELTIGO', account_number: '233261234567' });
    expect(transferTarget({ partyIdType: 'MSISDN', partyId: '256772123456' }, 'UGX')).toEqual({ account_bank: 'MPS', account_number: '256772123456' });
    expect(transferTarget({ partyIdType: 'MSISDN', partyId: '221771234567' }, 'XOF').account_bank).toBe('FMM');
  });

  test('a party that cannot be placed is a request we cannot send', () => {
    const bad: Array<() => unknown> = [
      () => chargeTarget({ partyIdType: 'MSISDN', partyId: '233991234567' }, 'GHS'), // no network of that prefix
      () => chargeTarget({ partyIdType: 'MSISDN', partyId: '254712345678' }, 'GHS'), // not a Ghana number
      () => chargeTarget({ partyIdType: 'MSISDN', partyId: '233241234567' }, 'NGN'), // no mobile-money charge in NGN
      () => chargeTarget({ partyIdType: 'MSISDN', partyId: '33612345678' }, 'XOF'), // not a francophone Africa number
      () => chargeTarget({ partyIdType: 'MSISDN', partyId: '0241234' }, 'GHS'),
      () => chargeTarget({ partyIdType: 'BANK_ACCOUNT', partyId: ':123456' }, 'GHS'),
      () => transferTarget({ partyIdType: 'BANK_ACCOUNT', partyId: 'GCB:' }, 'GHS'),
      () => transferTarget({ partyIdType: 'MSISDN', partyId: '27821234567' }, 'ZAR'),
    ];
    for (const call of bad) expect(call).toThrow(RailRequestInvalid);
  });
});

describe('the error table', () => {
  test('a code first, else a message by prefix (case and spacing ignored), else unknown', () => {
    expect(errorCodeOf('invalid_phone', 'whatever')).toBe('INVALID_PHONE');
    expect(errorCodeOf(undefined, 'No transaction was found for this id')).toBe('TRANSACTION_NOT_FOUND');
    expect(errorCodeOf(undefined, '  DISBURSE FAILED:   Insufficient funds in customer wallet (ref 12)')).toBe('INSUFFICIENT_BALANCE');
    expect(errorCodeOf('SOMETHING_ELSE', 'Account resolve failed')).toBe('INVALID_ACCOUNT');
    expect(errorCodeOf(undefined, 'A brand new error')).toBeUndefined();
    expect(isDuplicateAnswer('DUPLICATE_REFERENCE', '')).toBe(true);
    expect(isDuplicateAnswer(undefined, 'Duplicate transaction reference')).toBe(true);
    expect(isDuplicateAnswer(undefined, 'Invalid phone number')).toBe(false);
  });

  test('every code has a failure class and a handling; an unknown error is asked about, declined, its words kept as a code', () => {
    expect(classifyError('INSUFFICIENT_FUNDS', undefined)).toEqual({ reason: 'INSUFFICIENT_FUNDS', failureClass: 'insufficient_funds', handling: 'refused', known: true, elsewhere: false });
    expect(classifyError(undefined, 'Please whitelist your IP address')).toMatchObject({ reason: 'IP_NOT_WHITELISTED', handling: 'misconfigured' });
    expect(classifyError(undefined, 'Something new: call support!')).toEqual({ reason: 'SOMETHING_NEW_CALL_SUPPORT', failureClass: 'declined', handling: 'ask_status', known: false, elsewhere: false });
    expect(reasonOf(undefined, undefined)).toBe('UNSPECIFIED');
    expect(reasonOf(undefined, 'x'.repeat(100))).toHaveLength(64);
  });

  test('docs/aggregator.md lists every code with its HTTP status, failure class and handling, and no other', () => {
    const words: Record<AggregatorErrorEntry['handling'], string> = { refused: 'refused and final', retry: 'retry the same request', ask_status: 'ask the status first', misconfigured: 'our configuration' };
    const rows = tableRows('| Code | Message');
    const documented = Object.fromEntries(rows.map(([code, messages, http, failureClass, handling, seen, elsewhere]) => [code.replace(/`/g, ''), { messages, http, failureClass: failureClass.replace(/`/g, ''), handling, seen, elsewhere: elsewhere === 'yes' }]));
    expect(Object.keys(documented).sort()).toEqual(Object.keys(AGGREGATOR_ERRORS).sort());
    for (const [code, entry] of Object.entries(AGGREGATOR_ERRORS) as Array<[string, AggregatorErrorEntry]>) {
      const row = documented[code];
      expect({ code, http: row.http, failureClass: row.failureClass, seen: row.seen, elsewhere: row.elsewhere }).toEqual({ code, http: String(entry.httpStatus), failureClass: entry.failureClass, seen: entry.seen, elsewhere: entry.elsewhere === true });
      expect({ code, handling: row.handling.startsWith(words[entry.handling]) }).toEqual({ code, handling: true });
      for (const message of entry.messages) expect({ code, message, listed: row.messages.includes(message) }).toEqual({ code, message, listed: true });
    }
  });
});

describe('statuses', () => {
  test("each resource's own words: pending, succeeded (the aggregator's id, amount, currency), failed (the code or the words)", () => {
    expect(parseAggregatorStatus('collection', { id: 9, tx_ref: 'r', status: 'successful', amount: 5000, currency: 'ugx' })).toEqual({ status: 'succeeded', financialTransactionId: '9', amount: 5_000, currency: 'UGX' });
    expect(parseAggregatorStatus('collection', { status: 'failed', processor_response: 'Transaction declined by customer', amount: 1, currency: 'GHS' })).toEqual({ status: 'failed', reason: 'CUSTOMER_DECLINED', failureClass: 'declined', amount: 100, currency: 'GHS' });
    expect(parseAggregatorStatus('collection', { status: 'failed' })).toEqual({ status: 'failed', reason: 'UNSPECIFIED', failureClass: 'declined' });
    expect(parseAggregatorStatus('collection', { status: 'cancelled' })).toEqual({ status: 'failed', reason: 'CUSTOMER_DECLINED', failureClass: 'declined' });
    expect(parseAggregatorStatus('disbursement', { status: 'NEW' })).toEqual({ status: 'pending' });
    expect(parseAggregatorStatus('disbursement', { status: 'FAILED', failure_code: 'INSUFFICIENT_BALANCE', complete_message: 'x' })).toMatchObject({ status: 'failed', reason: 'INSUFFICIENT_BALANCE', failureClass: 'partner_unavailable' });
    expect(parseAggregatorStatus('disbursement', { status: 'successful', id: 3 })).toEqual({ status: 'succeeded', financialTransactionId: '3' });
    expect(parseAggregatorStatus('refund', { status: 'completed', id: 4, amount_refunded: 10.5, currency: 'KES' })).toEqual({ status: 'succeeded', financialTransactionId: '4', amount: 1_050, currency: 'KES' });
    // A charge's words are not a refund's: `completed` is no charge status.
    expect(parseAggregatorStatus('collection', { status: 'completed' })).toBeUndefined();
    expect(parseAggregatorStatus('refund', { status: 'successful' })).toBeUndefined();
    for (const body of [null, [], 'successful', {}, { status: 7 }]) expect(parseAggregatorStatus('collection', body)).toBeUndefined();
  });

  test("a bank transfer's instructions are read whole or not at all", () => {
    const authorization = { transfer_account: '9900000001', transfer_bank: 'Bank', transfer_amount: 150.05, account_expiration: '2026-12-16T10:30:00Z' };
    expect(instructionsOf(authorization, 'GHS')).toEqual({ kind: 'bank_transfer', bankName: 'Bank', accountNumber: '9900000001', accountName: null, amount: 15_005, currency: 'GHS', expiresAt: '2026-12-16T10:30:00.000Z' });
    expect(instructionsOf({ ...authorization, account_expiration: '2026-12-16T11:30:00+01:00' }, 'GHS')?.expiresAt).toBe('2026-12-16T10:30:00.000Z');
    for (const broken of [{ ...authorization, account_expiration: '2026-12-16 10:30:00' }, { ...authorization, transfer_account: '' }, { ...authorization, transfer_amount: 'lots' }, { ...authorization, transfer_bank: undefined }]) {
      expect(instructionsOf(broken, 'GHS')).toBeUndefined();
    }
    expect(parseAggregatorStatus('collection', { status: 'pending', currency: 'GHS', meta: { authorization } })).toMatchObject({ status: 'pending', instructions: { accountNumber: '9900000001' } });
  });
});

test("docs/aggregator.md's behaviour table lists the MoMo fake's suffixes and a card's own, and no other", () => {
  const suffixes = tableRows('| party ends in |').map(([cell]) => /^`(\d{4})`/.exec(cell)?.[1]).filter((s): s is string => s !== undefined);
  expect(suffixes.sort()).toEqual([...Object.keys(BEHAVIOUR_BY_SUFFIX), ...Object.keys(CARD_BEHAVIOUR_BY_SUFFIX)].sort());
});
