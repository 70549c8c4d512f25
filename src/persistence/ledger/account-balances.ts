import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../../domain/environment';
import { ACCOUNTS, type Transfer } from '../../domain/ledger';

/**
 * One balance row per ledger account (`account_balances`, keyed by merchant, environment, currency
 * and account), kept equal to the sum of that account's ledger entries: the row moves in the same
 * transaction as its postings. Amounts are exact integers end to end: `bigint` in SQL (a sum past
 * 2^63 - 1 raises SQLSTATE 22003, a class-22 error that is never retried), decimal strings in
 * TypeScript, integer literals in JSON. A single posting stays within Number.MAX_SAFE_INTEGER
 * (charge amounts are validated to it); a balance may go beyond it.
 */

export interface BalanceScope {
  merchantId: string;
  environment: Environment;
  currency: string;
}

/** Net change per account of a set of transfers, as exact decimal strings, sorted by account. */
export function balanceDeltas(transfers: Transfer[]): { account: string; amount: string }[] {
  const sums = new Map<string, bigint>();
  for (const transfer of transfers) {
    for (const posting of transfer.postings) sums.set(posting.account, (sums.get(posting.account) ?? 0n) + BigInt(posting.amount));
  }
  return [...sums.keys()].sort().map((account) => ({ account, amount: sums.get(account)!.toString() }));
}

/**
 * Adds the transfers' postings to their accounts' balance rows, inside the caller's transaction (the
 * entries themselves go in with the event counter, right after: state-change.ts). The rows of a merchant's currency are hot (every charge of that
 * merchant and currency moves them) and stay locked until commit, so they are taken in one statement,
 * in key order (`order by account`: the scope is the same for every row): two transactions always
 * lock them in the same order and never wait on each other in a cycle. An account whose net change is
 * zero still gets its row, so every account with entries has a row.
 */
export async function addToBalances(em: EntityManager, scope: BalanceScope, transfers: Transfer[]): Promise<void> {
  const deltas = balanceDeltas(transfers);
  if (deltas.length === 0) return;
  await em.execute(
    `insert into account_balances (merchant_id, environment, currency, account, amount, updated_at)
     select ?, ?, ?, d.account, d.amount, now() from jsonb_to_recordset(?::jsonb) as d(account text, amount bigint) order by d.account
     on conflict (merchant_id, environment, currency, account)
     do update set amount = account_balances.amount + excluded.amount, updated_at = excluded.updated_at`,
    [scope.merchantId, scope.environment, scope.currency, JSON.stringify(deltas)],
  );
}

export interface BalanceAmount {
  currency: string;
  /** Exact signed minor units as a decimal integer string (may exceed Number.MAX_SAFE_INTEGER). */
  amount: string;
}

export interface BalanceFigures {
  available: BalanceAmount[];
  pending: BalanceAmount[];
  /** Committed and on its way out: payouts and refunds in flight (later settlements in transit, disputed amounts). */
  reserved: BalanceAmount[];
}

/**
 * Merchant balances per currency for one environment, read from the balance rows (no ledger scan).
 * A currency appears once any of the three accounts has entries in it; the others then show 0.
 */
export async function readBalances(em: EntityManager, merchantId: string, environment: Environment): Promise<BalanceFigures> {
  const rows = await em.execute<{ account: string; currency: string; amount: string }[]>(
    `select account, currency, amount::text as amount from account_balances
     where merchant_id = ? and environment = ? and account in (?, ?, ?)
     order by currency`,
    [merchantId, environment, ACCOUNTS.merchantAvailable, ACCOUNTS.merchantPending, ACCOUNTS.merchantReserved],
  );
  const currencies = [...new Set(rows.map((r) => r.currency))];
  const pick = (account: string) =>
    currencies.map((currency) => ({
      currency,
      amount: rows.find((r) => r.account === account && r.currency === currency)?.amount ?? '0',
    }));
  return { available: pick(ACCOUNTS.merchantAvailable), pending: pick(ACCOUNTS.merchantPending), reserved: pick(ACCOUNTS.merchantReserved) };
}
