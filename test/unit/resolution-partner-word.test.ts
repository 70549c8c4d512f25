import { partnerWordOnResolution, resolutionRefusedNotFinal } from '../../src/domain/charge-resolution';

// Issue 43: an operator's resolution of a live charge is told what the partner said; the charge
// always ends as the partner says (workflows/charge-rail-live.ts), this only says whether it agreed.

test('succeeded agrees only with a SUCCESSFUL whose transaction id is in the evidence', () => {
  expect(partnerWordOnResolution('txn_1', 'succeeded', 'statement line 14: ft-778 120.00 GHS', { kind: 'succeeded', financialTransactionId: 'ft-778' }, 'succeeded')).toEqual({
    agreed: true,
    partner: 'SUCCESSFUL (financialTransactionId ft-778)',
    message: 'charge txn_1: the partner says SUCCESSFUL (financialTransactionId ft-778); the charge is succeeded',
  });
  const other = partnerWordOnResolution('txn_1', 'succeeded', 'ft-given-by-phone', { kind: 'succeeded', financialTransactionId: 'ft-778' }, 'succeeded');
  expect(other).toMatchObject({ agreed: false, message: expect.stringMatching(/the charge is succeeded as the partner says; but the partner's transaction id ft-778 is not in the evidence/) });
  expect(partnerWordOnResolution('txn_1', 'succeeded', 'ft-778', { kind: 'succeeded' }, 'succeeded')).toMatchObject({ agreed: false, partner: 'SUCCESSFUL', message: expect.stringMatching(/no transaction id, so your evidence could not be checked/) });
  const failed = partnerWordOnResolution('txn_1', 'succeeded', 'ft-778', { kind: 'failed', reason: 'NOT_ENOUGH_FUNDS' }, 'failed (insufficient_funds)');
  expect(failed).toMatchObject({ agreed: false, partner: 'FAILED (NOT_ENOUGH_FUNDS)', message: expect.stringMatching(/not succeeded: the charge is failed \(insufficient_funds\) as the partner says and nothing is credited/) });
});

test('failed agrees with a FAILED, and is told when the partner says SUCCESSFUL', () => {
  expect(partnerWordOnResolution('txn_2', 'failed', 'ft-none', { kind: 'failed', reason: 'APPROVAL_REJECTED' }, 'expired (declined)')).toMatchObject({ agreed: true, partner: 'FAILED (APPROVAL_REJECTED)' });
  expect(partnerWordOnResolution('txn_2', 'failed', 'ft-none', { kind: 'succeeded', financialTransactionId: 'ft-9' }, 'succeeded')).toMatchObject({
    agreed: false,
    message: expect.stringMatching(/not failed: the charge is succeeded as the partner says \(the customer paid\)/),
  });
});

test('a refusal while the partner has no final answer names what it said and that nothing changed', () => {
  expect(resolutionRefusedNotFinal('txn_3', 'succeeded', 'pending', '2026-11-28T10:00:00.000Z')).toMatch(/^charge txn_3: the partner, asked at 2026-11-28T10:00:00.000Z, says PENDING: .*refused and nothing changed/);
  expect(resolutionRefusedNotFinal('txn_3', 'failed', 'unknown', 'T')).toMatch(/says it does not know the reference \(unknown\)/);
  expect(resolutionRefusedNotFinal('txn_3', 'failed', 'no_answer', 'T')).toMatch(/did not answer/);
});
