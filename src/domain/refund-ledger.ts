import { ACCOUNTS, type Transfer } from './ledger';
import type { RefundRecord, RefundStatus } from './refund';

/**
 * A refund's transfers (deterministic ids `<refund id>:<step>`, so a step is never posted twice). The
 * merchant's available balance pays the refund; the charge's fees are not returned.
 *
 * - reserve, at acceptance: the amount from available into reserved;
 * - post, on success: the reservation leaves to the customer (refund_clearing);
 * - release, on failure: the reservation returns to available.
 */
type RefundAmounts = Pick<RefundRecord, 'id' | 'amount'>;

export function refundReserveTransfer(refund: RefundAmounts): Transfer {
  return {
    id: `${refund.id}:reserve`,
    kind: 'refund_reserve',
    postings: [
      { account: ACCOUNTS.merchantAvailable, amount: -refund.amount },
      { account: ACCOUNTS.merchantReserved, amount: refund.amount },
    ],
  };
}

export function refundPostTransfer(refund: RefundAmounts): Transfer {
  return {
    id: `${refund.id}:post`,
    kind: 'refund_post',
    postings: [
      { account: ACCOUNTS.merchantReserved, amount: -refund.amount },
      { account: ACCOUNTS.refundClearing, amount: refund.amount },
    ],
  };
}

export function refundReleaseTransfer(refund: RefundAmounts): Transfer {
  return {
    id: `${refund.id}:release`,
    kind: 'refund_release',
    postings: [
      { account: ACCOUNTS.merchantReserved, amount: -refund.amount },
      { account: ACCOUNTS.merchantAvailable, amount: refund.amount },
    ],
  };
}

/** The transfers of a refund entering `to`: the reserve at acceptance (`pending`), post or release at the end. */
export function refundTransfersFor(refund: RefundAmounts, to: RefundStatus): Transfer[] {
  switch (to) {
    case 'pending':
      return [refundReserveTransfer(refund)];
    case 'succeeded':
      return [refundPostTransfer(refund)];
    case 'failed':
      return [refundReleaseTransfer(refund)];
  }
}
