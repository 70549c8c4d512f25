import { lateClearTransfer, lateCreditTransfer, lateReceiptTransfer, lateReserveTransfer, lateReturnPaidTransfer, lateReturnTransfer } from '../../src/domain/late-answer-ledger';
import { captureTransfer, isBalanced, type Transfer } from '../../src/domain/ledger';
import { payoutPostTransfer } from '../../src/domain/payout-ledger';
import { settlementPostTransfer } from '../../src/domain/settlement-ledger';
import { closeReviewRefusal, paymentReviewWorkflowId, reviewedKind, reviewedPaymentId, settleLateActionRefusal, settleLateRefusal } from '../../src/domain/payment-review';
import type { ChargeRecord } from '../../src/domain/charge';

// Issue 29: the settle request's validation, the review's ids, and the late money's transfers.

test('a settle request names an operator, a reason and an action; no control characters', () => {
  expect(settleLateRefusal({ action: 'credit', operator: 'cli:ama', reason: 'customer debited', evidence: 'ft-1' })).toBeNull();
  expect(settleLateRefusal({ action: 'credit', operator: 'cli:ama' })).toMatch(/reason/);
  expect(settleLateRefusal({ action: 'credit', reason: 'x' })).toMatch(/operator/);
  expect(settleLateRefusal({ action: 'refund', operator: 'a', reason: 'x' })).toMatch(/credit, return, accept/);
  expect(settleLateRefusal({ action: 'credit', operator: 'a\u0000', reason: 'x' })).toMatch(/control/);
  expect(settleLateRefusal({ action: 'credit', operator: 'a', reason: 'x\r' })).toMatch(/control/);
  expect(settleLateRefusal({ action: 'credit', operator: 'a', reason: 'x', evidence: 7 })).toMatch(/evidence/);
  expect(settleLateRefusal(null)).not.toBeNull();
  expect(closeReviewRefusal({ operator: 'a', reason: 'checked' })).toBeNull();
  expect(closeReviewRefusal({ operator: 'a', reason: '\u001b[31m' })).toMatch(/control/);
});

test('the action fits the payment: credit or return a charge, accept a payout or settlement', () => {
  expect(settleLateActionRefusal('charge', 'credit')).toBeNull();
  expect(settleLateActionRefusal('charge', 'return')).toBeNull();
  expect(settleLateActionRefusal('charge', 'accept')).not.toBeNull();
  for (const kind of ['payout', 'settlement'] as const) {
    expect(settleLateActionRefusal(kind, 'accept')).toBeNull();
    expect(settleLateActionRefusal(kind, 'credit')).not.toBeNull();
    expect(settleLateActionRefusal(kind, 'return')).not.toBeNull();
  }
});

test('review ids: review-<payment id>', () => {
  expect(paymentReviewWorkflowId('txn_1')).toBe('review-txn_1');
  expect(reviewedPaymentId('review-po_1')).toBe('po_1');
  expect(reviewedPaymentId('po_1')).toBeNull();
  expect([reviewedKind('txn_1'), reviewedKind('po_1'), reviewedKind('stl_1'), reviewedKind('re_1'), reviewedKind('dp_1')]).toEqual(['charge', 'payout', 'settlement', 'refund', null]);
});

/** The net of each account over some transfers. */
function net(transfers: Transfer[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of transfers) for (const p of t.postings) out[p.account] = (out[p.account] ?? 0) + p.amount;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== 0));
}

test('late money: every transfer balances, and each settlement brings late_funds back to zero', () => {
  const charge = { id: 'txn_1', amount: 10_000, merchantAmount: 9_700, fee: { platform: 260, tax: 40, bearer: 'merchant' } } as unknown as ChargeRecord;
  const c = { id: 'txn_1', amount: 10_000, totalDebit: 10_000 };
  const credited = [lateReceiptTransfer('charge', c), lateCreditTransfer(c), captureTransfer(charge)];
  const returned = [lateReceiptTransfer('charge', c), lateReturnTransfer(c), lateReturnPaidTransfer(c)];
  for (const t of [...credited, ...returned]) expect(isBalanced(t)).toBe(true);
  // Credited: as a capture on time (the customer side out, the merchant in).
  expect(net(credited)).toEqual({ customer_clearing: -10_000, merchant_available: 9_700, platform_fee: 260, tax: 40 });
  // Returned: from the customer side to refund_clearing, nothing for the merchant.
  expect(net(returned)).toEqual({ customer_clearing: -10_000, refund_clearing: 10_000 });

  const p = { id: 'po_1', amount: 20_000, totalDebit: 20_230 };
  const payout = [lateReceiptTransfer('payout', p), lateReserveTransfer('payout', p), payoutPostTransfer({ id: 'po_1', amount: 20_000, feePlatform: 200, feeTax: 30, totalDebit: 20_230 }), lateClearTransfer('payout', p)];
  for (const t of payout) expect(isBalanced(t)).toBe(true);
  expect(net(payout)).toEqual({ merchant_available: -20_230, payout_clearing: 20_000, platform_fee: 200, tax: 30 });

  const s = { id: 'stl_1', amount: 5_000, totalDebit: 5_000 };
  const settlement = [lateReceiptTransfer('settlement', s), lateReserveTransfer('settlement', s), settlementPostTransfer({ id: 'stl_1', amount: 5_000 }), lateClearTransfer('settlement', s)];
  for (const t of settlement) expect(isBalanced(t)).toBe(true);
  expect(net(settlement)).toEqual({ merchant_available: -5_000, settlement_clearing: 5_000 });
});
