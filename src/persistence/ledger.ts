import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../domain/environment';
import { isBalanced, type Transfer } from '../domain/ledger';
import { LedgerEntry } from './entities';

export interface LedgerScope {
  merchantId: string;
  environment: Environment;
  currency: string;
  resourceId: string;
}

/**
 * Stages a balanced transfer's entries in the caller's unit of work (written at its next flush).
 * Entries are never updated or deleted. Their accounts' balance rows move in the same transaction
 * (`addToBalances` in account-balances.ts); `writeStateChange` in state-change.ts does both, in order, for every payment type.
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
