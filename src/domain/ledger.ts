import type { ChargeRecord } from './charge';

/**
 * Double-entry ledger accounts, per merchant, environment and currency. Amounts are signed minor
 * units; every transfer's entries sum to zero. A merchant balance is the sum of its account's entries.
 */
export const ACCOUNTS = {
  customerClearing: 'customer_clearing',
  merchantPending: 'merchant_pending',
  merchantAvailable: 'merchant_available',
  platformFee: 'platform_fee',
  tax: 'tax',
  /** Money the merchant has committed and that is on its way out: payouts and refunds in flight, settlements in transit and disputed amounts. */
  merchantReserved: 'merchant_reserved',
  /** Money that left to a payout's recipient through the rail. */
  payoutClearing: 'payout_clearing',
  /** Money that went back to a customer through a refund. */
  refundClearing: 'refund_clearing',
  /** Money that left to the merchant's own settlement bank account through a paid settlement batch. */
  settlementClearing: 'settlement_clearing',
  /** Money that went back to a cardholder through a lost dispute. */
  disputeClearing: 'dispute_clearing',
  /**
   * Suspense for late money (issue 29, src/domain/late-answer-ledger.ts): a charge's money the partner
   * collected after we ended the charge (positive), or a payout or settlement the partner paid after we
   * failed it (negative: the platform's float paid it), until an operator settles it.
   */
  lateFunds: 'late_funds',
  /** Late money on its way back to the payer through a partner transfer (a settled `return`). */
  returnsInTransit: 'returns_in_transit',
} as const;

export type Account = (typeof ACCOUNTS)[keyof typeof ACCOUNTS];

/** Payouts: reserve on accept (available -> reserved), post on success, release on failure, reverse after success (fee kept). */
export type PayoutTransferKind = 'payout_reserve' | 'payout_post' | 'payout_release' | 'payout_reversal';
/** Refunds: reserve on accept, post on success, release on failure. */
export type RefundTransferKind = 'refund_reserve' | 'refund_post' | 'refund_release';
/** Settlements: sweep available into reserved (in transit) when the batch is created, post to settlement_clearing when paid, release back to available when failed. */
export type SettlementTransferKind = 'settlement_sweep' | 'settlement_post' | 'settlement_release';
/** Disputes: hold the disputed amount (available -> reserved) when opened, release it when won, debit it to dispute_clearing when lost. */
export type DisputeTransferKind = 'dispute_hold' | 'dispute_release' | 'dispute_debit';
/** Late answers (src/domain/late-answer-ledger.ts): the late money recorded, then settled. */
export type LateTransferKind =
  | 'late_receipt'
  | 'late_credit'
  | 'late_return'
  | 'late_return_paid'
  | 'payout_late_paid'
  | 'payout_late_reserve'
  | 'payout_late_clear'
  | 'settlement_late_paid'
  | 'settlement_late_sweep'
  | 'settlement_late_clear'
  | 'refund_late_paid'
  | 'refund_late_reserve'
  | 'refund_late_clear';

export interface Posting {
  account: Account;
  amount: number;
}

export interface Transfer {
  /** Deterministic id: the same business step always yields the same transfer id. */
  id: string;
  kind: 'hold' | 'hold_void' | 'capture' | 'capture_reversal' | PayoutTransferKind | RefundTransferKind | SettlementTransferKind | DisputeTransferKind | LateTransferKind;
  postings: Posting[];
}

/** On acceptance: the expected merchant amount is reserved as pending (a pending transfer). */
export function holdTransfer(charge: ChargeRecord): Transfer {
  return {
    id: `${charge.id}:hold`,
    kind: 'hold',
    postings: [
      { account: ACCOUNTS.customerClearing, amount: -charge.merchantAmount },
      { account: ACCOUNTS.merchantPending, amount: charge.merchantAmount },
    ],
  };
}

/** Releases the pending reservation (on success before capture, or on failure and expiry). */
export function holdVoidTransfer(charge: ChargeRecord): Transfer {
  return { id: `${charge.id}:hold_void`, kind: 'hold_void', postings: negate(holdTransfer(charge).postings) };
}

/** On success: the customer's money is split between merchant, platform fee and tax. */
export function captureTransfer(charge: ChargeRecord): Transfer {
  return {
    id: `${charge.id}:capture`,
    kind: 'capture',
    postings: [
      { account: ACCOUNTS.customerClearing, amount: -charge.amount },
      { account: ACCOUNTS.merchantAvailable, amount: charge.merchantAmount },
      { account: ACCOUNTS.platformFee, amount: charge.fee.platform },
      { account: ACCOUNTS.tax, amount: charge.fee.tax },
    ].filter((p) => p.amount !== 0) as Posting[],
  };
}

/** A reversal never edits the capture: it posts its exact opposite. */
export function captureReversalTransfer(charge: ChargeRecord): Transfer {
  return { id: `${charge.id}:capture_reversal`, kind: 'capture_reversal', postings: negate(captureTransfer(charge).postings) };
}

function negate(postings: Posting[]): Posting[] {
  return postings.map((p) => ({ account: p.account, amount: -p.amount }));
}

export function isBalanced(transfer: Transfer): boolean {
  return transfer.postings.reduce((sum, p) => sum + p.amount, 0) === 0;
}
