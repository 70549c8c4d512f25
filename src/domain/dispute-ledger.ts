import type { DisputeRecord, DisputeStatus } from './dispute';
import { ACCOUNTS, type Transfer } from './ledger';

/**
 * A dispute's transfers (deterministic ids `<dispute id>:<step>`, so a step is never posted twice):
 *
 * - hold, when opened: the disputed amount from available into reserved. Unlike a refund or a
 *   payout it is not checked against the available balance: a chargeback is not optional, so it may
 *   drive available below zero (the merchant's later collections make it good);
 * - release, when won: the hold returns to available;
 * - debit, when lost: the hold leaves to the cardholder (dispute_clearing).
 */
type DisputeAmounts = Pick<DisputeRecord, 'id' | 'amount'>;

export function disputeHoldTransfer(dispute: DisputeAmounts): Transfer {
  return {
    id: `${dispute.id}:hold`,
    kind: 'dispute_hold',
    postings: [
      { account: ACCOUNTS.merchantAvailable, amount: -dispute.amount },
      { account: ACCOUNTS.merchantReserved, amount: dispute.amount },
    ],
  };
}

export function disputeReleaseTransfer(dispute: DisputeAmounts): Transfer {
  return {
    id: `${dispute.id}:release`,
    kind: 'dispute_release',
    postings: [
      { account: ACCOUNTS.merchantReserved, amount: -dispute.amount },
      { account: ACCOUNTS.merchantAvailable, amount: dispute.amount },
    ],
  };
}

export function disputeDebitTransfer(dispute: DisputeAmounts): Transfer {
  return {
    id: `${dispute.id}:debit`,
    kind: 'dispute_debit',
    postings: [
      { account: ACCOUNTS.merchantReserved, amount: -dispute.amount },
      { account: ACCOUNTS.disputeClearing, amount: dispute.amount },
    ],
  };
}

/** The transfers of a dispute entering `to`: the hold when opened, release or debit at the end; none for evidence. */
export function disputeTransfersFor(dispute: DisputeAmounts, to: DisputeStatus): Transfer[] {
  switch (to) {
    case 'needs_response':
      return [disputeHoldTransfer(dispute)];
    case 'under_review':
      return [];
    case 'won':
      return [disputeReleaseTransfer(dispute)];
    case 'lost':
      return [disputeDebitTransfer(dispute)];
  }
}
