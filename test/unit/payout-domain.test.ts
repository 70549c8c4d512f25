import { isBalanced } from '../../src/domain/ledger';
import { canPayoutSettleLate, canPayoutTransition, computePayoutFee, payoutEventType, payoutJson, payoutObject, PAYOUT_STATUSES, type PayoutRecord } from '../../src/domain/payout';
import { payoutPostTransfer, payoutReleaseTransfer, payoutReserveTransfer, payoutReversalTransfer, payoutTransfersFor } from '../../src/domain/payout-ledger';

const record: PayoutRecord = {
  id: 'po_000000000000000000000001',
  merchantId: 'mer_1',
  environment: 'sandbox',
  status: 'pending',
  amount: 100_000,
  currency: 'GHS',
  channel: 'mobile_money',
  momoNetworkId: '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01',
  bankCode: null,
  recipientMasked: '********4567',
  recipientName: 'Kofi',
  yourReference: 'r1',
  reference: 'PO-1',
  description: null,
  metadataJson: '{"b":1,"a":2}',
  feePlatform: 1_000,
  feeTax: 150,
  totalDebit: 101_150,
  failureClass: null,
  sandboxOutcome: null,
  requiresReview: false,
  reviewDecision: null,
  reviewReason: null,
  reviewDecidedBy: null,
  reviewDecidedAt: null,
  reversedAt: null,
  createdAt: '2026-11-24T10:00:00.000Z',
  updatedAt: '2026-11-24T10:00:00.000Z',
};

test('fees: 1.00 % mobile money, 0.50 % bank with a floor of 100, tax 15 % of the fee, half up, exact in bigint', () => {
  expect(computePayoutFee(100_000, 'mobile_money')).toEqual({ platform: 1_000, tax: 150, totalDebit: 101_150 });
  expect(computePayoutFee(1_000, 'mobile_money')).toEqual({ platform: 10, tax: 2, totalDebit: 1_012 }); // 1.5 → 2
  expect(computePayoutFee(49, 'mobile_money')).toEqual({ platform: 0, tax: 0, totalDebit: 49 });
  expect(computePayoutFee(50, 'mobile_money')).toEqual({ platform: 1, tax: 0, totalDebit: 51 });
  expect(computePayoutFee(5_000, 'bank')).toEqual({ platform: 100, tax: 15, totalDebit: 5_115 });
  expect(computePayoutFee(50_001, 'bank')).toEqual({ platform: 250, tax: 38, totalDebit: 50_289 });
  expect(computePayoutFee(1, 'bank')).toEqual({ platform: 100, tax: 15, totalDebit: 116 });
});

test('transitions: the INTERFACE table, nothing else', () => {
  const allowed = PAYOUT_STATUSES.flatMap((from) => PAYOUT_STATUSES.filter((to) => canPayoutTransition(from, to)).map((to) => `${from}->${to}`));
  expect(allowed.sort()).toEqual(['held_for_review->failed', 'held_for_review->pending', 'pending->failed', 'pending->succeeded', 'succeeded->reversed']);
  expect(PAYOUT_STATUSES.map(payoutEventType)).toEqual(['payout.initiated', 'payout.held_for_review', 'payout.succeeded', 'payout.failed', 'payout.reversed']);
});

test('a payout the partner paid after it failed (issue 29) is accepted late: failed -> succeeded, its own way, nothing else', () => {
  const late = PAYOUT_STATUSES.flatMap((from) => PAYOUT_STATUSES.filter((to) => canPayoutSettleLate(from, to)).map((to) => `${from}->${to}`));
  expect(late).toEqual(['failed->succeeded']);
  expect(canPayoutTransition('failed', 'succeeded')).toBe(false);
});

test('transfers: balanced, deterministic ids, the fee kept on reversal', () => {
  for (const t of [payoutReserveTransfer(record), payoutPostTransfer(record), payoutReleaseTransfer(record), payoutReversalTransfer(record)]) expect(isBalanced(t)).toBe(true);
  expect(payoutTransfersFor(record, 'succeeded').map((t) => [t.id, t.postings])).toEqual([
    [
      `${record.id}:post`,
      [
        { account: 'merchant_reserved', amount: -101_150 },
        { account: 'payout_clearing', amount: 100_000 },
        { account: 'platform_fee', amount: 1_000 },
        { account: 'tax', amount: 150 },
      ],
    ],
  ]);
  expect(payoutTransfersFor(record, 'reversed')[0].postings).toEqual([
    { account: 'payout_clearing', amount: -100_000 },
    { account: 'merchant_available', amount: 100_000 },
  ]);
  expect(payoutTransfersFor(record, 'pending')).toEqual([]);
});

test('the object: review once reviewed (without who), failure_class once failed, metadata as sent', () => {
  expect(payoutObject(record)).not.toHaveProperty('review');
  expect(payoutObject(record)).not.toHaveProperty('failure_class');
  expect(payoutObject(record)).not.toHaveProperty('bank_code');
  const failed = { ...record, status: 'failed' as const, failureClass: 'declined' as const, reviewDecision: 'rejected' as const, reviewReason: 'no', reviewDecidedBy: 'ops', reviewDecidedAt: record.createdAt };
  expect(payoutObject(failed)).toMatchObject({ failure_class: 'declined', review: { decision: 'rejected', reason: 'no', decided_at: record.createdAt } });
  expect(payoutObject(failed).review).not.toHaveProperty('decided_by');
  expect(payoutJson(record).endsWith(',"metadata":{"b":1,"a":2}}')).toBe(true);
  expect(JSON.parse(payoutJson(record))).toEqual(JSON.parse(JSON.stringify(payoutObject(record))));
});
