import { ACCOUNTS, type Transfer } from './ledger';
import type { SettlementRecord, SettlementStatus } from './settlement';

/**
 * A settlement batch's transfers (deterministic ids `<stl id>:<step>`, so a step is never posted twice):
 *
 * - sweep, when the batch is created: the available balance into reserved (in transit);
 * - post, when paid: the money in transit leaves to the merchant's bank account (settlement_clearing);
 * - release, when failed: the money in transit returns to available.
 */
type SettlementAmounts = Pick<SettlementRecord, 'id' | 'amount'>;

export function settlementSweepTransfer(batch: SettlementAmounts): Transfer {
  return {
    id: `${batch.id}:sweep`,
    kind: 'settlement_sweep',
    postings: [
      { account: ACCOUNTS.merchantAvailable, amount: -batch.amount },
      { account: ACCOUNTS.merchantReserved, amount: batch.amount },
    ],
  };
}

export function settlementPostTransfer(batch: SettlementAmounts): Transfer {
  return {
    id: `${batch.id}:post`,
    kind: 'settlement_post',
    postings: [
      { account: ACCOUNTS.merchantReserved, amount: -batch.amount },
      { account: ACCOUNTS.settlementClearing, amount: batch.amount },
    ],
  };
}

export function settlementReleaseTransfer(batch: SettlementAmounts): Transfer {
  return {
    id: `${batch.id}:release`,
    kind: 'settlement_release',
    postings: [
      { account: ACCOUNTS.merchantReserved, amount: -batch.amount },
      { account: ACCOUNTS.merchantAvailable, amount: batch.amount },
    ],
  };
}

/** The transfers of a batch entering `to`: the sweep at creation (`pending`), post or release at the end. */
export function settlementTransfersFor(batch: SettlementAmounts, to: SettlementStatus): Transfer[] {
  switch (to) {
    case 'pending':
      return [settlementSweepTransfer(batch)];
    case 'paid':
      return [settlementPostTransfer(batch)];
    case 'failed':
      return [settlementReleaseTransfer(batch)];
  }
}
