import {
  BALANCE_ACCOUNTS,
  FEE_ACCOUNTS,
  FEE_KINDS,
  FEE_SPLIT,
  transferIdsOf,
  typeFilter,
  type BalancePart,
  type BalancePostingRow,
  type BalanceTransactionKey,
  type BalanceTransactionType,
  type SourceKind,
} from '../../domain/balance-transaction';
import type { Environment } from '../../domain/environment';
import type { Orm } from '../orm';
import { iso } from '../sql-values';

export interface BalanceTransactionQuery {
  limit: number;
  /** The last item of the previous page: its created_at (ISO, milliseconds) and key. */
  cursor: (BalanceTransactionKey & { createdAt: string }) | null;
  type?: BalanceTransactionType;
  /** ISO 4217: three upper-case letters, a code of the reference list (GET /v1/reference/currencies). */
  currency?: string;
  source?: { kind: SourceKind; id: string };
  /** Validated ISO 8601 (exclusive bounds). */
  createdAfter?: string;
  createdBefore?: string;
}

/** A code constant as an SQL literal (accounts and kinds are identifiers of our own, never input). */
function literal(value: string): string {
  if (!/^[a-z_]+$/.test(value)) throw new Error(`not an SQL-safe constant: ${value}`);
  return `'${value}'`;
}
const literals = (values: readonly string[]) => values.map(literal).join(', ');

const MERCHANT_ACCOUNTS = literals(Object.values(BALANCE_ACCOUNTS));

/** One row of postingRows's query, as PostgreSQL returns it. */
interface PostingRecord {
  transfer_id: string;
  account: string;
  kind: string;
  resource_id: string;
  currency: string;
  amount: string;
  fee: string;
  part: BalancePart;
  created_at: Date | string;
}

/**
 * The caller's postings on merchant_available or merchant_reserved, each joined (lateral) with its
 * transfer's fee postings (kinds that have them: a primary-key lookup) and with its parts, so a payout
 * post's reserved posting yields two rows. `where` adds conditions (with `?` for `params`); `tail`
 * orders and limits. Accounts and kinds are code constants written into the SQL (so the partial
 * index's predicate is visible to the planner); every value from the request is bound.
 */
async function postingRows(
  orm: Orm,
  scope: { merchantId: string; environment: Environment },
  where: string[],
  params: unknown[],
  tail: string,
  tailParams: unknown[],
  /** The rows `e` ranges over instead of the whole ledger (a derived table of ledger rows), and its parameters. */
  from?: { sql: string; params: unknown[] },
): Promise<BalancePostingRow[]> {
  const rows = await orm.em.fork().execute<PostingRecord[]>(
    `select e.transfer_id, e.account, e.kind, e.resource_id, e.currency, e.amount::text as amount, f.fee::text as fee, p.part, e.created_at
     from ${from?.sql ?? 'ledger_entries'} e
     cross join lateral (
       select coalesce(sum(x.amount), 0) as fee from ledger_entries x
       where e.kind in (${literals(FEE_KINDS)}) and x.transfer_id = e.transfer_id and x.account in (${literals(FEE_ACCOUNTS)})) f
     cross join lateral (
       select ''::text as part
       union all
       select 'fee'::text where e.kind = ${literal(FEE_SPLIT.kind)} and e.account = ${literal(FEE_SPLIT.account)} and f.fee <> 0) p
     where e.merchant_id = ? and e.environment = ? and e.account in (${MERCHANT_ACCOUNTS})${where.map((c) => ` and ${c}`).join('')}
     ${tail}`,
    [...(from?.params ?? []), scope.merchantId, scope.environment, ...params, ...tailParams],
  );
  return rows.map((r) => ({
    transferId: r.transfer_id,
    account: r.account,
    kind: r.kind,
    resourceId: r.resource_id,
    currency: r.currency,
    amount: r.amount,
    fee: r.fee,
    part: r.part,
    createdAt: iso(r.created_at),
  }));
}

/**
 * One page of the caller's balance transactions (src/domain/balance-transaction.ts), newest first
 * (postingRows: `limit` counts items, a split payout post is two).
 *
 * Order: created_at desc, transfer_id desc, account desc, part desc (a total order: (transfer_id,
 * account) is the ledger's primary key), on the partial index ledger_entries_merchant_history
 * (migrations/Migration20261125000003_balance_transactions.ts). The cursor compares on the same key.
 * `source` looks up the source's transfer ids (`<source id>:<step>`) by primary key. `currency` is
 * an equality on a column of the posting row, which the index scan reads anyway (amount, kind and
 * resource_id are not in the index either): the scan stays the index's, ordered, and skips the other
 * currencies' postings as it goes. Fetches `limit + 1` rows (the extra one says there is more).
 */
export async function listBalanceTransactions(orm: Orm, scope: { merchantId: string; environment: Environment }, query: BalanceTransactionQuery): Promise<BalancePostingRow[]> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  // Conditions on the posting row alone, also applied to each kind's candidates below.
  const posting: string[] = [];
  const postingParams: unknown[] = [];
  const both = (clause: string, ...values: unknown[]) => {
    add(clause, ...values);
    posting.push(clause);
    postingParams.push(...values);
  };
  if (query.source !== undefined) {
    const ids = transferIdsOf(query.source.kind, query.source.id);
    both(`e.transfer_id in (${ids.map(() => '?').join(', ')}) and e.resource_id = ?`, ...ids, query.source.id);
  }
  if (query.currency !== undefined) both('e.currency = ?', query.currency);
  if (query.createdAfter !== undefined) both('e.created_at > ?::timestamptz', query.createdAfter);
  if (query.createdBefore !== undefined) both('e.created_at < ?::timestamptz', query.createdBefore);
  if (query.cursor) {
    const c = query.cursor;
    // The first bound is the index range; the row comparison settles ties within one millisecond.
    both('e.created_at <= ?::timestamptz', c.createdAt);
    add('(e.created_at, e.transfer_id, e.account, p.part) < (?::timestamptz, ?, ?, ?)', c.createdAt, c.transferId, BALANCE_ACCOUNTS[c.balance], c.part);
    // Without the part: the cursor's own posting may still have an item after it (its fee part).
    posting.push('(e.created_at, e.transfer_id, e.account) <= (?::timestamptz, ?, ?)');
    postingParams.push(c.createdAt, c.transferId, BALANCE_ACCOUNTS[c.balance]);
  }
  let from: { sql: string; params: unknown[] } | undefined;
  if (query.type !== undefined) {
    const { kinds, part } = typeFilter(query.type);
    add(`e.kind in (${literals(kinds)}) and p.part = ?`, part);
    if (part === '') from = newestOfEachKind(scope, kinds, posting, postingParams, query.limit + 2);
  }
  return postingRows(orm, scope, clauses, params, 'order by e.created_at desc, e.transfer_id desc, e.account desc, p.part desc limit ?', [query.limit + 1], from);
}

/**
 * The `type` filter's candidates (issue 34): for each kind of the type, its newest `perKind` postings
 * on the merchant's balances meeting the posting's own conditions, one ordered range of
 * ledger_entries_merchant_kind each (migrations/Migration20261213000001_list_filter_indexes.ts), all
 * together. Whatever the type's share of the history and wherever its postings lie in it, the page
 * reads at most `perKind` postings per kind, where a walk of the history in date order skipping the
 * other kinds reads back to the type's newest postings (300,000 postings for a type with none).
 *
 * Exact: an item of a type whose part is '' is one per posting, so the page's postings of each kind are
 * among that kind's newest `limit + 1` meeting the same conditions; the cursor's bound here leaves out
 * the part (the cursor's own posting may qualify), hence `limit + 2`. Not for `fee`, whose items are
 * the postings with a non-zero fee only (a kind's newest postings need not have one).
 */
function newestOfEachKind(scope: { merchantId: string; environment: Environment }, kinds: readonly string[], where: string[], params: unknown[], perKind: number): { sql: string; params: unknown[] } {
  const conditions = where.map((c) => ` and ${c}`).join('');
  const one = (kind: string) =>
    `(select * from ledger_entries e where e.merchant_id = ? and e.environment = ? and e.account in (${MERCHANT_ACCOUNTS}) and e.kind = ${literal(kind)}${conditions}
      order by e.created_at desc, e.transfer_id desc, e.account desc limit ?)`;
  return {
    sql: `(${kinds.map(one).join(' union all ')})`,
    params: kinds.flatMap(() => [scope.merchantId, scope.environment, ...params, perKind]),
  };
}

/**
 * The caller's balance transaction of this key (GET /v1/balance-transactions/{id}), or null: a
 * primary-key lookup of the posting (transfer_id, account), kept only when it is the caller's merchant
 * and environment, so another merchant's or environment's posting is null exactly like a missing
 * one. A `fee` part exists only for a payout post's reserved posting with a non-zero fee.
 */
export async function findBalanceTransaction(orm: Orm, scope: { merchantId: string; environment: Environment }, key: BalanceTransactionKey): Promise<BalancePostingRow | null> {
  const rows = await postingRows(orm, scope, ['e.transfer_id = ?', 'e.account = ?', 'p.part = ?'], [key.transferId, BALANCE_ACCOUNTS[key.balance], key.part], '', []);
  return rows[0] ?? null;
}
