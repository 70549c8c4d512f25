import { UNSPECIFIED_REASON, parseMomoStatus } from '../../src/rail/momo-status';

describe('a status answer or callback body as a RailStatus', () => {
  test('PENDING, SUCCESSFUL and FAILED', () => {
    expect(parseMomoStatus({ status: 'PENDING', amount: '1.00' })).toEqual({ status: 'pending' });
    expect(parseMomoStatus({ status: 'SUCCESSFUL', financialTransactionId: '363440463' })).toEqual({ status: 'succeeded', financialTransactionId: '363440463' });
    expect(parseMomoStatus({ status: 'SUCCESSFUL', financialTransactionId: 363440463 })).toEqual({ status: 'succeeded', financialTransactionId: '363440463' });
    expect(parseMomoStatus({ status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' })).toEqual({ status: 'failed', reason: 'NOT_ENOUGH_FUNDS', failureClass: 'insufficient_funds' });
    expect(parseMomoStatus({ status: 'FAILED', reason: { code: 'PAYER_LIMIT_REACHED', message: '…' } })).toEqual({ status: 'failed', reason: 'PAYER_LIMIT_REACHED', failureClass: 'limit_exceeded' });
  });

  test('a success without its id is still a success; a failure without a reason is declined', () => {
    expect(parseMomoStatus({ status: 'SUCCESSFUL' })).toEqual({ status: 'succeeded', financialTransactionId: '' });
    expect(parseMomoStatus({ status: 'FAILED' })).toEqual({ status: 'failed', reason: UNSPECIFIED_REASON, failureClass: 'declined' });
  });

  test('the other words some markets use', () => {
    expect(parseMomoStatus({ status: 'CREATED' })).toEqual({ status: 'pending' });
    expect(parseMomoStatus({ status: 'ongoing' })).toEqual({ status: 'pending' });
    expect(parseMomoStatus({ status: 'REJECTED' })).toEqual({ status: 'failed', reason: 'APPROVAL_REJECTED', failureClass: 'declined' });
    expect(parseMomoStatus({ status: 'TIMEOUT' })).toEqual({ status: 'failed', reason: 'EXPIRED', failureClass: 'timeout' });
  });

  test('anything else is not a status', () => {
    for (const body of [undefined, null, 'SUCCESSFUL', [], {}, { status: 1 }, { status: 'DONE' }, { status: 'toString' }, [{ status: 'SUCCESSFUL' }]]) {
      expect(parseMomoStatus(body)).toBeUndefined();
    }
  });

  test('a final answer carries the amount in minor units and the currency it names', () => {
    expect(parseMomoStatus({ status: 'SUCCESSFUL', financialTransactionId: '7', amount: '150.00', currency: 'GHS' })).toEqual({ status: 'succeeded', financialTransactionId: '7', amount: 15000, currency: 'GHS' });
    expect(parseMomoStatus({ status: 'SUCCESSFUL', financialTransactionId: '7', amount: '150.01', currency: 'ghs ' })).toEqual({ status: 'succeeded', financialTransactionId: '7', amount: 15001, currency: 'GHS' });
    expect(parseMomoStatus({ status: 'SUCCESSFUL', amount: '5000', currency: 'UGX' })).toEqual({ status: 'succeeded', financialTransactionId: '', amount: 5000, currency: 'UGX' });
    expect(parseMomoStatus({ status: 'SUCCESSFUL', amount: 1.5, currency: 'EUR' })).toEqual({ status: 'succeeded', financialTransactionId: '', amount: 150, currency: 'EUR' });
    expect(parseMomoStatus({ status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS', amount: '2.50', currency: 'GHS' })).toEqual({ status: 'failed', reason: 'NOT_ENOUGH_FUNDS', failureClass: 'insufficient_funds', amount: 250, currency: 'GHS' });
    expect(parseMomoStatus({ status: 'PENDING', amount: '2.50', currency: 'GHS' })).toEqual({ status: 'pending' });
  });

  test('an amount that cannot be read is left out, never guessed', () => {
    // no currency: the amount alone means nothing
    expect(parseMomoStatus({ status: 'SUCCESSFUL', financialTransactionId: '7', amount: '150.00' })).toEqual({ status: 'succeeded', financialTransactionId: '7' });
    // more decimals than the currency has, not a decimal, a currency without a known exponent
    expect(parseMomoStatus({ status: 'SUCCESSFUL', financialTransactionId: '7', amount: '150.001', currency: 'GHS' })).toEqual({ status: 'succeeded', financialTransactionId: '7', currency: 'GHS' });
    expect(parseMomoStatus({ status: 'SUCCESSFUL', financialTransactionId: '7', amount: '1,50', currency: 'GHS' })).toEqual({ status: 'succeeded', financialTransactionId: '7', currency: 'GHS' });
    expect(parseMomoStatus({ status: 'FAILED', amount: '10', currency: 'XYZ' })).toEqual({ status: 'failed', reason: UNSPECIFIED_REASON, failureClass: 'declined', currency: 'XYZ' });
    expect(parseMomoStatus({ status: 'FAILED', amount: '10', currency: 3 })).toEqual({ status: 'failed', reason: UNSPECIFIED_REASON, failureClass: 'declined' });
  });
});
