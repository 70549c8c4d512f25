import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../../domain/environment';
import { isBalanced, type Transfer } from '../../domain/ledger';
import { LedgerEntry } from '../entities';

export interface LedgerScope {
  merchantId: string;
  environment: Environment;
  currency: string;
  resourceId: string;
}

/** One ledger row of a state change, as the event statement inserts it (src/persistence/events/event-log.ts). */
export interface PostingRow {
  transfer_id: string;
  account: string;
  kind: string;
  amount: number;
}

/**
 * The ledger rows of a state change's transfers, each transfer checked to balance (a transfer that
 * does not is never written). They are inserted by `appendEvent` (event-log.ts) in the statement that
 * takes the merchant's event counter, dated then by the database: see there for what that guarantees.
 * Entries are never updated or deleted. Their accounts' balance rows move in the same transaction
 * (`addToBalances` in account-balances.ts); `writeStateChange` in state-change.ts does both, in
 * order, for every payment type.
 */
export function postingRowsOf(transfers: Transfer[]): PostingRow[] {
  const rows: PostingRow[] = [];
  for (const transfer of transfers) {
    if (!isBalanced(transfer)) throw new Error(`transfer ${transfer.id} does not balance`);
    for (const posting of transfer.postings) rows.push({ transfer_id: transfer.id, account: posting.account, kind: transfer.kind, amount: posting.amount });
  }
  return rows;
}

/**
 * Stages a balanced transfer's entries, dated `at`, in the caller's unit of work (written at its next
 * flush), for money moved outside a state change: the test suite's and the benchmarks' funding.
 * Every state change posts through `writeStateChange` instead (dated when it commits).
 */
export function postTransfer(em: EntityManager, scope: LedgerScope, transfer: Transfer, at: Date): void {
  if (!isBalanced(transfer)) throw new Error(`transfer ${transfer.id} does not balance`);
  for (const posting of transfer.postings) {
    em.create(LedgerEntry, {
      transferId: transfer.id,
      account: posting.account,
      kind: transfer.kind,
      merchantId: scope.merchantId,
      environment: scope.environment,
      currency: scope.currency,
      amount: posting.amount,
      resourceId: scope.resourceId,
      createdAt: at,
    });
  }
}
