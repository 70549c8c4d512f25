import { statusMismatch } from '../../activities/rail';

// A final status's amount and currency against what we sent (issue 29, finding 7): the partner's
// word on how much moved is compared, never dropped.

const sent = { amount: 15_000, currency: 'GHS' };

test('a SUCCESSFUL of our amount and currency, or one that gives neither, matches', () => {
  expect(statusMismatch(sent, { status: 'succeeded', financialTransactionId: 'ft', amount: 15_000, currency: 'GHS' })).toBeUndefined();
  expect(statusMismatch(sent, { status: 'succeeded', financialTransactionId: 'ft' })).toBeUndefined();
  expect(statusMismatch(sent, { status: 'pending' })).toBeUndefined();
});

test('another amount or currency is named, with ours', () => {
  expect(statusMismatch(sent, { status: 'succeeded', financialTransactionId: 'ft', amount: 15_001, currency: 'GHS' })).toBe(
    "the partner's SUCCESSFUL says amount 15001 minor units, ours 15000",
  );
  expect(statusMismatch(sent, { status: 'failed', reason: 'X', failureClass: 'declined', amount: 15_000, currency: 'NGN' })).toBe("the partner's FAILED says currency NGN, ours GHS");
});
