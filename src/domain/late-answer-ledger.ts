import { ACCOUNTS, type Transfer } from './ledger';
import type { ReviewedKind } from './payment-review';

/**
 * The transfers of late money (issue 29; docs/partner-rail.md, "Late answers"), ids `<payment id>:<step>`
 * so no step is ever posted twice. `late_funds` is a suspense account: it holds what moved at the
 * partner after we had ended the payment, until an operator settles it, and is zero for every
 * payment whose late money is settled.
 *
 * Charge (the partner collected from the payer after the charge expired or failed; its hold was voided):
 * - recorded: `late_receipt` customer_clearing → late_funds (the money is with us, nobody's yet);
 * - credit: `late_credit` late_funds → customer_clearing, then the charge's normal `capture`
 *   (customer_clearing → merchant_available, fee, tax): the charge is succeeded, as if on time;
 * - return: `late_return` late_funds → returns_in_transit (on its way back to the payer), then, once
 *   the partner has paid the return transfer, `late_return_paid` returns_in_transit → refund_clearing.
 *
 * Payout, settlement or refund (issue 45) (the partner paid the recipient, or the payer back, after we failed it and released its money):
 * - recorded: `*_late_paid` late_funds → payout_clearing / settlement_clearing (the money left, out of
 *   the platform's float: late_funds goes negative);
 * - accept: `*_late_reserve` / `*_late_sweep` merchant_available → merchant_reserved again (available
 *   may go negative: the merchant owes it), the normal `post`, then `*_late_clear` payout_clearing /
 *   settlement_clearing → late_funds (the suspense is repaid; the clearing account keeps one posting).
 */
export interface LateAmounts {
  id: string;
  /** What left or arrived at the partner: a charge's or payout's amount, a settlement's amount. */
  amount: number;
  /** A payout's total debit (amount + fee); the amount otherwise. */
  totalDebit: number;
}

/** The clearing account money leaves through, per kind (charges: the customer side). */
function clearingOf(kind: ReviewedKind) {
  if (kind === 'payout') return ACCOUNTS.payoutClearing;
  if (kind === 'settlement') return ACCOUNTS.settlementClearing;
  if (kind === 'refund') return ACCOUNTS.refundClearing;
  return ACCOUNTS.customerClearing;
}

/** The money-out kinds: money left through the partner (late: paid after we said it failed). */
type OutKind = 'payout' | 'settlement' | 'refund';
const OUT_PAID = { payout: 'payout_late_paid', settlement: 'settlement_late_paid', refund: 'refund_late_paid' } as const;
const OUT_RESERVE = { payout: 'payout_late_reserve', settlement: 'settlement_late_sweep', refund: 'refund_late_reserve' } as const;
const OUT_CLEAR = { payout: 'payout_late_clear', settlement: 'settlement_late_clear', refund: 'refund_late_clear' } as const;

/** Recording late money: the partner's SUCCESSFUL for a payment we had ended. */
export function lateReceiptTransfer(kind: ReviewedKind, p: LateAmounts): Transfer {
  if (kind === 'charge') {
    return {
      id: `${p.id}:late_receipt`,
      kind: 'late_receipt',
      postings: [
        { account: ACCOUNTS.customerClearing, amount: -p.amount },
        { account: ACCOUNTS.lateFunds, amount: p.amount },
      ],
    };
  }
  return {
    id: `${p.id}:late_paid`,
    kind: OUT_PAID[kind],
    postings: [
      { account: ACCOUNTS.lateFunds, amount: -p.amount },
      { account: clearingOf(kind), amount: p.amount },
    ],
  };
}

/** A charge's late money credited: back to customer_clearing, from where the normal capture takes it. */
export function lateCreditTransfer(p: LateAmounts): Transfer {
  return {
    id: `${p.id}:late_credit`,
    kind: 'late_credit',
    postings: [
      { account: ACCOUNTS.lateFunds, amount: -p.amount },
      { account: ACCOUNTS.customerClearing, amount: p.amount },
    ],
  };
}

/** A charge's late money on its way back to the payer. */
export function lateReturnTransfer(p: LateAmounts): Transfer {
  return {
    id: `${p.id}:late_return`,
    kind: 'late_return',
    postings: [
      { account: ACCOUNTS.lateFunds, amount: -p.amount },
      { account: ACCOUNTS.returnsInTransit, amount: p.amount },
    ],
  };
}

/** The return transfer paid by the partner: the money has gone back to the payer (refund_clearing). */
export function lateReturnPaidTransfer(p: LateAmounts): Transfer {
  return {
    id: `${p.id}:late_return_paid`,
    kind: 'late_return_paid',
    postings: [
      { account: ACCOUNTS.returnsInTransit, amount: -p.amount },
      { account: ACCOUNTS.refundClearing, amount: p.amount },
    ],
  };
}

/** A payout's or settlement's money reserved again from available before its normal post (accept). */
export function lateReserveTransfer(kind: OutKind, p: LateAmounts): Transfer {
  return {
    id: `${p.id}:${kind === 'settlement' ? 'late_sweep' : 'late_reserve'}`,
    kind: OUT_RESERVE[kind],
    postings: [
      { account: ACCOUNTS.merchantAvailable, amount: -p.totalDebit },
      { account: ACCOUNTS.merchantReserved, amount: p.totalDebit },
    ],
  };
}

/** The suspense repaid once the normal post has put the amount on the clearing account again (accept). */
export function lateClearTransfer(kind: OutKind, p: LateAmounts): Transfer {
  return {
    id: `${p.id}:late_clear`,
    kind: OUT_CLEAR[kind],
    postings: [
      { account: clearingOf(kind), amount: -p.amount },
      { account: ACCOUNTS.lateFunds, amount: p.amount },
    ],
  };
}
