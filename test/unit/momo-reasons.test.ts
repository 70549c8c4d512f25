import { isFailureClass } from '../../src/domain/failure-classes';
import { MOMO_REASONS, UNMAPPED_REASON_CLASS, failureClassOf, reasonCodeOf } from '../../src/rail/momo-reasons';

describe('the partner reason map', () => {
  test.each([
    ['PAYER_NOT_FOUND', 'invalid_recipient'],
    ['PAYEE_NOT_FOUND', 'invalid_recipient'],
    ['PAYEE_NOT_ALLOWED_TO_RECEIVE', 'invalid_recipient'],
    ['NOT_ENOUGH_FUNDS', 'insufficient_funds'],
    ['PAYER_LIMIT_REACHED', 'limit_exceeded'],
    ['PAYEE_LIMIT_REACHED', 'limit_exceeded'],
    ['APPROVAL_REJECTED', 'declined'],
    ['PAYMENT_NOT_APPROVED', 'declined'],
    ['TRANSACTION_CANCELED', 'declined'],
    ['NOT_ALLOWED', 'declined'],
    ['EXPIRED', 'timeout'],
    ['SERVICE_UNAVAILABLE', 'partner_unavailable'],
    ['INTERNAL_PROCESSING_ERROR', 'partner_unavailable'],
    ['COULD_NOT_PERFORM_TRANSACTION', 'partner_unavailable'],
  ])('%s is %s', (reason, failureClass) => {
    expect(failureClassOf(reason)).toBe(failureClass);
    expect(failureClassOf(reason.toLowerCase())).toBe(failureClass);
  });

  test('the map names exactly those reasons, each with one of our failure classes', () => {
    expect(Object.keys(MOMO_REASONS)).toHaveLength(14);
    for (const failureClass of Object.values(MOMO_REASONS)) expect(isFailureClass(failureClass)).toBe(true);
  });

  test('a reason it does not know, or none, is declined', () => {
    expect(UNMAPPED_REASON_CLASS).toBe('declined');
    for (const reason of ['INVALID_CURRENCY', 'SOMETHING_NEW', '', undefined, null, 'toString', '__proto__', 'constructor']) {
      expect(failureClassOf(reason)).toBe('declined');
    }
  });

  test('the reason code is read from an error answer, a status, or an older nested reason', () => {
    expect(reasonCodeOf({ code: 'PAYER_NOT_FOUND', message: 'Payer not found' })).toBe('PAYER_NOT_FOUND');
    expect(reasonCodeOf({ status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' })).toBe('NOT_ENOUGH_FUNDS');
    expect(reasonCodeOf({ status: 'FAILED', reason: { code: 'APPROVAL_REJECTED', message: '…' } })).toBe('APPROVAL_REJECTED');
    expect(reasonCodeOf({ code: 'payer_not_found' })).toBe('PAYER_NOT_FOUND');
    for (const body of [undefined, null, 'PAYER_NOT_FOUND', [], {}, { code: 42 }, { code: 'has spaces in it' }, { reason: { message: 'no code' } }, { code: 'X'.repeat(65) }]) {
      expect(reasonCodeOf(body)).toBeUndefined();
    }
  });
});
