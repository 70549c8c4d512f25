import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../domain/environment';
import { ACCOUNTS, isBalanced, type Transfer } from '../domain/ledger';
import { LedgerEntry } from './entities';

export interface LedgerScope {
  merchantId: string;
  environment: Environment;
  currency: string;
  resourceId: string;
}

/** Posts a balanced transfer inside the caller's transaction. Entries are never updated or deleted. */
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

export interface BalanceFigures {
  available: { currency: string; amount: number }[];
  pending: { currency: string; amount: number }[];
}

/** Merchant balances per currency for one environment, summed from the ledger. */
export async function readBalances(em: EntityManager, merchantId: string, environment: Environment): Promise<BalanceFigures> {
  const rows = await em.execute<{ account: string; currency: string; amount: string }[]>(
    `select account, currency, sum(amount)::text as amount from ledger_entries
     where merchant_id = ? and environment = ? and account in (?, ?)
     group by account, currency order by currency`,
    [merchantId, environment, ACCOUNTS.merchantAvailable, ACCOUNTS.merchantPending],
  );
  const currencies = [...new Set(rows.map((r) => r.currency))];
  const pick = (account: string) =>
    currencies.map((currency) => ({
      currency,
      amount: Number(rows.find((r) => r.account === account && r.currency === currency)?.amount ?? 0),
    }));
  return { available: pick(ACCOUNTS.merchantAvailable), pending: pick(ACCOUNTS.merchantPending) };
}
