import {
  BALANCE_TRANSACTION_TYPES,
  balanceTransactionJson,
  balanceTransactionsOf,
  balanceTransactionId,
  parseBalanceTransactionId,
  transferIdsOf,
  TRANSFER_KINDS,
  typeFilter,
  type BalancePostingRow,
  type TransferKind,
} from '../../src/domain/balance-transaction';
import { disputeDebitTransfer, disputeHoldTransfer, disputeReleaseTransfer } from '../../src/domain/dispute-ledger';
import { ACCOUNTS, type Transfer } from '../../src/domain/ledger';
import { payoutPostTransfer, payoutReleaseTransfer, payoutReserveTransfer, payoutReversalTransfer } from '../../src/domain/payout-ledger';
import { refundPostTransfer, refundReleaseTransfer, refundReserveTransfer } from '../../src/domain/refund-ledger';
import { settlementPostTransfer, settlementReleaseTransfer, settlementSweepTransfer } from '../../src/domain/settlement-ledger';
import { lateClearTransfer, lateCreditTransfer, lateReceiptTransfer, lateReserveTransfer, lateReturnPaidTransfer, lateReturnTransfer } from '../../src/domain/late-answer-ledger';

// Balance transactions (src/domain/balance-transaction.ts): the type of every transfer kind, the
// payout post split into `payout` + `fee`, net = amount - fee, and nets that add up to the balance.

const PO = 'po_AAAAAAAAAAAAAAAAAAAAAAAA';
const TXN = 'txn_BBBBBBBBBBBBBBBBBBBBBBBB';
const RE = 're_CCCCCCCCCCCCCCCCCCCCCCCC';
const STL = 'stl_DDDDDDDDDDDDDDDDDDDDDDDD';
const DP = 'dp_EEEEEEEEEEEEEEEEEEEEEEEE';
const AT = '2026-11-25T10:00:00.000Z';

const payout = { id: PO, amount: 100_000, feePlatform: 1_000, feeTax: 150, totalDebit: 101_150 };
/** A charge of 15,000: merchant amount 14,655, platform fee 300, tax 45. */
const capture: Transfer = {
  id: `${TXN}:capture`,
  kind: 'capture',
  postings: [
    { account: ACCOUNTS.customerClearing, amount: -15_000 },
    { account: ACCOUNTS.merchantAvailable, amount: 14_655 },
    { account: ACCOUNTS.platformFee, amount: 300 },
    { account: ACCOUNTS.tax, amount: 45 },
  ],
};
const captureReversal: Transfer = { id: `${TXN}:capture_reversal`, kind: 'capture_reversal', postings: capture.postings.map((p) => ({ ...p, amount: -p.amount })) };

/** The items of a transfer as the store's join yields them: one row per merchant posting, with the transfer's fee postings. */
function itemsOf(transfer: Transfer, resourceId: string) {
  const fee = transfer.postings.filter((p) => p.account === ACCOUNTS.platformFee || p.account === ACCOUNTS.tax).reduce((s, p) => s + p.amount, 0);
  return transfer.postings
    .filter((p) => p.account === ACCOUNTS.merchantAvailable || p.account === ACCOUNTS.merchantReserved)
    .flatMap((p) => {
      const row: Omit<BalancePostingRow, 'part'> = { transferId: transfer.id, account: p.account, kind: transfer.kind, resourceId, currency: 'GHS', amount: String(p.amount), fee: String(fee), createdAt: AT };
      return balanceTransactionsOf(row);
    });
}

const plain = (items: ReturnType<typeof itemsOf>) => items.map((t) => ({ type: t.type, balance: t.balance, amount: Number(t.amount), fee: Number(t.fee), net: Number(t.net) }));

test('a capture: the gross amount, the fee of the transfer (platform + tax), net the merchant amount; a reversal is its opposite', () => {
  expect(plain(itemsOf(capture, TXN))).toEqual([{ type: 'charge', balance: 'available', amount: 15_000, fee: 345, net: 14_655 }]);
  expect(plain(itemsOf(captureReversal, TXN))).toEqual([{ type: 'charge', balance: 'available', amount: -15_000, fee: -345, net: -14_655 }]);
});

test('a payout post: its reserved posting (-total_debit) is two items, payout (-amount) and fee (-(platform + tax))', () => {
  const items = itemsOf(payoutPostTransfer(payout), PO);
  expect(plain(items)).toEqual([
    { type: 'payout', balance: 'reserved', amount: -100_000, fee: 0, net: -100_000 },
    { type: 'fee', balance: 'reserved', amount: -1_150, fee: 0, net: -1_150 },
  ]);
  expect(items.map((t) => t.id)).toEqual([`bt_${PO}:post:reserved`, `bt_${PO}:post:reserved:fee`]);
  expect(items.every((t) => t.source === PO)).toBe(true);
  // Without a fee there is nothing to split.
  expect(plain(itemsOf(payoutPostTransfer({ ...payout, feePlatform: 0, feeTax: 0, totalDebit: 100_000 }), PO))).toEqual([
    { type: 'payout', balance: 'reserved', amount: -100_000, fee: 0, net: -100_000 },
  ]);
});

test('every other transfer: amount = net = the posting, fee 0, one item per balance', () => {
  expect(plain(itemsOf(payoutReserveTransfer(payout), PO))).toEqual([
    { type: 'payout', balance: 'available', amount: -101_150, fee: 0, net: -101_150 },
    { type: 'payout', balance: 'reserved', amount: 101_150, fee: 0, net: 101_150 },
  ]);
  expect(plain(itemsOf(payoutReleaseTransfer(payout), PO)).map((t) => t.type)).toEqual(['payout', 'payout']);
  // A reversal returns the amount; the fee is kept.
  expect(plain(itemsOf(payoutReversalTransfer(payout), PO))).toEqual([{ type: 'payout_reversal', balance: 'available', amount: 100_000, fee: 0, net: 100_000 }]);
  const refund = { id: RE, amount: 4_000 };
  for (const t of [refundReserveTransfer(refund), refundPostTransfer(refund), refundReleaseTransfer(refund)]) expect(new Set(plain(itemsOf(t, RE)).map((i) => i.type))).toEqual(new Set(['refund']));
  const batch = { id: STL, amount: 50_000 };
  for (const t of [settlementSweepTransfer(batch), settlementPostTransfer(batch), settlementReleaseTransfer(batch)]) expect(new Set(plain(itemsOf(t, STL)).map((i) => i.type))).toEqual(new Set(['settlement']));
  const dispute = { id: DP, amount: 15_000 };
  for (const t of [disputeHoldTransfer(dispute), disputeReleaseTransfer(dispute), disputeDebitTransfer(dispute)]) expect(new Set(plain(itemsOf(t, DP)).map((i) => i.type))).toEqual(new Set(['dispute']));
});

test('net = amount - fee on every item, and the nets of a balance add up to its postings (the reconciliation property)', () => {
  const refund = { id: RE, amount: 4_000 };
  const transfers = [capture, payoutReserveTransfer(payout), payoutPostTransfer(payout), payoutReversalTransfer(payout), refundReserveTransfer(refund), refundPostTransfer(refund), captureReversal];
  const items = transfers.flatMap((t) => itemsOf(t, t.id.split(':')[0]));
  for (const t of items) expect(t.net).toBe(t.amount - t.fee);
  for (const [balance, account] of [['available', ACCOUNTS.merchantAvailable], ['reserved', ACCOUNTS.merchantReserved]] as const) {
    const postings = transfers.flatMap((t) => t.postings).filter((p) => p.account === account).reduce((s, p) => s + BigInt(p.amount), 0n);
    expect(items.filter((t) => t.balance === balance).reduce((s, t) => s + t.net, 0n)).toBe(postings);
  }
});

test('every transfer id of a source is `<source id>:<step>` as the ledger builders write them', () => {
  const built: [Transfer, string][] = [
    [capture, TXN],
    [captureReversal, TXN],
    ...[payoutReserveTransfer, payoutPostTransfer, payoutReleaseTransfer, payoutReversalTransfer].map((f) => [f(payout), PO] as [Transfer, string]),
    ...[refundReserveTransfer, refundPostTransfer, refundReleaseTransfer].map((f) => [f({ id: RE, amount: 1 }), RE] as [Transfer, string]),
    ...[settlementSweepTransfer, settlementPostTransfer, settlementReleaseTransfer].map((f) => [f({ id: STL, amount: 1 }), STL] as [Transfer, string]),
    ...[disputeHoldTransfer, disputeReleaseTransfer, disputeDebitTransfer].map((f) => [f({ id: DP, amount: 1 }), DP] as [Transfer, string]),
    // Late money (issue 29, src/domain/late-answer-ledger.ts).
    ...[lateReceiptTransfer('charge', { id: TXN, amount: 1, totalDebit: 1 }), lateCreditTransfer({ id: TXN, amount: 1, totalDebit: 1 }), lateReturnTransfer({ id: TXN, amount: 1, totalDebit: 1 }), lateReturnPaidTransfer({ id: TXN, amount: 1, totalDebit: 1 })].map((t) => [t, TXN] as [Transfer, string]),
    ...(['payout', 'settlement'] as const).flatMap((kind) => {
      const id = kind === 'payout' ? PO : STL;
      const p = { id, amount: 1, totalDebit: 2 };
      return [lateReceiptTransfer(kind, p), lateReserveTransfer(kind, p), lateClearTransfer(kind, p)].map((t) => [t, id] as [Transfer, string]);
    }),
  ];
  for (const [transfer, source] of built) {
    expect(transfer.id).toBe(`${source}:${TRANSFER_KINDS[transfer.kind].step}`);
    expect(transferIdsOf(TRANSFER_KINDS[transfer.kind].source, source)).toContain(transfer.id);
  }
  expect(transferIdsOf('charge', TXN)).toEqual([
    `${TXN}:hold`,
    `${TXN}:hold_void`,
    `${TXN}:capture`,
    `${TXN}:capture_reversal`,
    `${TXN}:late_receipt`,
    `${TXN}:late_credit`,
    `${TXN}:late_return`,
    `${TXN}:late_return_paid`,
  ]);
});

test('the type filter: the kinds of each type, `fee` the split-off part of payout posts', () => {
  expect(typeFilter('payout')).toEqual({ kinds: ['payout_reserve', 'payout_post', 'payout_release', 'payout_late_paid', 'payout_late_reserve', 'payout_late_clear'], part: '' });
  expect(typeFilter('payout_reversal')).toEqual({ kinds: ['payout_reversal'], part: '' });
  expect(typeFilter('fee')).toEqual({ kinds: ['payout_post'], part: 'fee' });
  expect(typeFilter('charge').kinds).toEqual(expect.arrayContaining(['capture', 'capture_reversal']));
  // Every kind has a type, and every type but `fee` has kinds.
  for (const kind of Object.keys(TRANSFER_KINDS) as TransferKind[]) expect(BALANCE_TRANSACTION_TYPES).toContain(TRANSFER_KINDS[kind].type);
  for (const type of BALANCE_TRANSACTION_TYPES) expect(typeFilter(type).kinds.length).toBeGreaterThan(0);
});

test('ids are deterministic and give back their key; anything else is not an id', () => {
  const key = { transferId: `${PO}:post`, balance: 'reserved' as const, part: 'fee' as const };
  expect(balanceTransactionId(key)).toBe(`bt_${PO}:post:reserved:fee`);
  expect(parseBalanceTransactionId(`bt_${PO}:post:reserved:fee`)).toEqual(key);
  expect(parseBalanceTransactionId(`bt_${TXN}:capture:available`)).toEqual({ transferId: `${TXN}:capture`, balance: 'available', part: '' });
  for (const bad of [`${TXN}:capture:available`, `bt_${TXN}:capture:pending`, `bt_${TXN}:capture`, `bt_txn_short:capture:available`, `bt_${TXN}:capture:available:tax`, `bt_${TXN}:capture:available\n`, `bt_${TXN}:CAPTURE:available`]) {
    expect(parseBalanceTransactionId(bad)).toBeNull();
  }
});

test('JSON: the documented fields, amounts as exact integers (past 2^53 too)', () => {
  const [item] = itemsOf(capture, TXN);
  expect(JSON.parse(balanceTransactionJson(item))).toEqual({
    id: `bt_${TXN}:capture:available`,
    object: 'balance_transaction',
    type: 'charge',
    source: TXN,
    balance: 'available',
    amount: 15_000,
    fee: 345,
    net: 14_655,
    currency: 'GHS',
    created_at: AT,
  });
  const big = { ...item, amount: 2n ** 60n, fee: 0n, net: 2n ** 60n };
  expect(balanceTransactionJson(big)).toContain(`"amount":${2n ** 60n},"fee":0,"net":${2n ** 60n}`);
});
