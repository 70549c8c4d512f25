import type { ChargeRecord } from '../../src/domain/charge';
import { captureReversalTransfer, captureTransfer, holdTransfer, holdVoidTransfer, isBalanced } from '../../src/domain/ledger';

const charge = {
  id: 'txn_x',
  amount: 15000,
  merchantAmount: 14741,
  fee: { platform: 225, tax: 34, bearer: 'merchant' },
} as ChargeRecord;

test('every transfer balances and has a deterministic id', () => {
  for (const t of [holdTransfer(charge), holdVoidTransfer(charge), captureTransfer(charge), captureReversalTransfer(charge)]) {
    expect(isBalanced(t)).toBe(true);
    expect(t.id).toBe(`txn_x:${t.kind}`);
  }
});

test('capture credits merchant, fee and tax from customer clearing; reversal is its exact opposite', () => {
  expect(captureTransfer(charge).postings).toEqual([
    { account: 'customer_clearing', amount: -15000 },
    { account: 'merchant_available', amount: 14741 },
    { account: 'platform_fee', amount: 225 },
    { account: 'tax', amount: 34 },
  ]);
  const reversal = captureReversalTransfer(charge).postings;
  expect(reversal.map((p) => p.amount)).toEqual([15000, -14741, -225, -34]);
});

test('hold then void leaves pending at zero', () => {
  const pending = [...holdTransfer(charge).postings, ...holdVoidTransfer(charge).postings]
    .filter((p) => p.account === 'merchant_pending')
    .reduce((s, p) => s + p.amount, 0);
  expect(pending).toBe(0);
});

test('an unbalanced transfer is detected', () => {
  expect(isBalanced({ id: 'x', kind: 'capture', postings: [{ account: 'tax', amount: 1 }] })).toBe(false);
});
