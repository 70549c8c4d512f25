import { ACCOUNTS, type Posting, type Transfer } from './ledger';
import type { PayoutRecord, PayoutStatus } from './payout';

/**
 * A payout's transfers (deterministic ids `<payout id>:<step>`, so a step is never posted twice):
 *
 * - reserve, at acceptance: total_debit from available into reserved;
 * - post, on success: the reservation leaves: the amount to payout_clearing, the fee to platform_fee
 *   and tax;
 * - release, on failure (rail failure, rejection, review timeout): the reservation returns to available;
 * - reversal, after success: the amount comes back from payout_clearing to available (the fee is kept).
 */
type PayoutAmounts = Pick<PayoutRecord, 'id' | 'amount' | 'feePlatform' | 'feeTax' | 'totalDebit'>;

const nonZero = (postings: Posting[]) => postings.filter((p) => p.amount !== 0);

export function payoutReserveTransfer(payout: PayoutAmounts): Transfer {
  return {
    id: `${payout.id}:reserve`,
    kind: 'payout_reserve',
    postings: [
      { account: ACCOUNTS.merchantAvailable, amount: -payout.totalDebit },
      { account: ACCOUNTS.merchantReserved, amount: payout.totalDebit },
    ],
  };
}

export function payoutPostTransfer(payout: PayoutAmounts): Transfer {
  return {
    id: `${payout.id}:post`,
    kind: 'payout_post',
    postings: nonZero([
      { account: ACCOUNTS.merchantReserved, amount: -payout.totalDebit },
      { account: ACCOUNTS.payoutClearing, amount: payout.amount },
      { account: ACCOUNTS.platformFee, amount: payout.feePlatform },
      { account: ACCOUNTS.tax, amount: payout.feeTax },
    ]),
  };
}

export function payoutReleaseTransfer(payout: PayoutAmounts): Transfer {
  return {
    id: `${payout.id}:release`,
    kind: 'payout_release',
    postings: [
      { account: ACCOUNTS.merchantReserved, amount: -payout.totalDebit },
      { account: ACCOUNTS.merchantAvailable, amount: payout.totalDebit },
    ],
  };
}

export function payoutReversalTransfer(payout: PayoutAmounts): Transfer {
  return {
    id: `${payout.id}:reversal`,
    kind: 'payout_reversal',
    postings: [
      { account: ACCOUNTS.payoutClearing, amount: -payout.amount },
      { account: ACCOUNTS.merchantAvailable, amount: payout.amount },
    ],
  };
}

/** The transfers of a transition into `to` (an approval, `pending`, moves no money). */
export function payoutTransfersFor(payout: PayoutAmounts, to: PayoutStatus): Transfer[] {
  switch (to) {
    case 'succeeded':
      return [payoutPostTransfer(payout)];
    case 'failed':
      return [payoutReleaseTransfer(payout)];
    case 'reversed':
      return [payoutReversalTransfer(payout)];
    default:
      return [];
  }
}
