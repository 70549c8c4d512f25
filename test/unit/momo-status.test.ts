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
});
