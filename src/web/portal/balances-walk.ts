import { balanceTransactionOf, parseBalanceTransactionId, type BalanceTransaction } from '../../domain/balance-transaction';
import { listBalanceTransactions, type BalanceTransactionQuery } from '../../persistence/ledger/balance-transaction-store';
import type { Orm } from '../../persistence/orm';
import type { Caller } from '../../services/context';

/** Items per store page while walking (the API's largest page). */
export const WALK_PAGE = 100;

/** The caller's next page of balance transactions (the API's store), `limit` of them, and the cursor after them when there are more. */
export async function balanceTransactionPage(orm: Orm, caller: Caller, query: BalanceTransactionQuery): Promise<{ items: BalanceTransaction[]; next: BalanceTransactionQuery['cursor'] }> {
  const rows = await listBalanceTransactions(orm, caller, query);
  const items = rows.slice(0, query.limit).map(balanceTransactionOf);
  const last = items[items.length - 1];
  return { items, next: rows.length > query.limit && last ? { createdAt: last.createdAt, ...parseBalanceTransactionId(last.id)! } : null };
}

/** Every balance transaction the query matches, newest first, page after page of the store (as a client walks next_cursor to the end). */
export async function* walkBalanceTransactions(orm: Orm, caller: Caller, query: Omit<BalanceTransactionQuery, 'limit' | 'cursor'>): AsyncGenerator<BalanceTransaction> {
  let cursor: BalanceTransactionQuery['cursor'] = null;
  do {
    const page = await balanceTransactionPage(orm, caller, { ...query, limit: WALK_PAGE, cursor });
    yield* page.items;
    cursor = page.next;
  } while (cursor);
}
