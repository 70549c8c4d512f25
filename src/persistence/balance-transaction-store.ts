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
} from '../domain/balance-transaction';
import type { Environment } from '../domain/environment';
import type { Orm } from './orm';
import { iso } from './sql-values';

export interface BalanceTransactionQuery {
  limit: number;
  /** The last item of the previous page: its created_at (ISO, milliseconds) and key. */
  cursor: (BalanceTransactionKey & { createdAt: string }) | null;
  type?: BalanceTransactionType;
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

/**
 * One page of the caller's balance transactions (src/domain/balance-transaction.ts), newest first:
 * every posting on merchant_available or merchant_reserved of the merchant and environment, joined
 * (lateral) with its transfer's fee postings (kinds that have them: a primary-key lookup) and with its
 * parts, so a payout post's reserved posting yields two rows and `limit` counts items.
 *
 * Order: created_at desc, transfer_id desc, account desc, part desc (a total order: (transfer_id,
 * account) is the ledger's primary key), on the partial index ledger_entries_merchant_history
 * (migrations/Migration20261125000003_balance_transactions.ts). The cursor compares on the same key.
 * `source` looks up the source's transfer ids (`<source id>:<step>`) by primary key. Fetches
 * `limit + 1` rows (the extra one says there is more).
 *
 * Accounts and kinds are code constants written into the SQL (so the partial index's predicate is
 * visible to the planner); every value from the request is bound.
 */
export async function listBalanceTransactions(orm: Orm, scope: { merchantId: string; environment: Environment }, query: BalanceTransactionQuery): Promise<BalancePostingRow[]> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (query.type !== undefined) {
    const { kinds, part } = typeFilter(query.type);
    add(`e.kind in (${literals(kinds)}) and p.part = ?`, part);
  }
  if (query.source !== undefined) {
    const ids = transferIdsOf(query.source.kind, query.source.id);
    add(`e.transfer_id in (${ids.map(() => '?').join(', ')}) and e.resource_id = ?`, ...ids, query.source.id);
  }
  if (query.createdAfter !== undefined) add('e.created_at > ?::timestamptz', query.createdAfter);
  if (query.createdBefore !== undefined) add('e.created_at < ?::timestamptz', query.createdBefore);
  if (query.cursor) {
    const c = query.cursor;
    // The first bound is the index range; the row comparison settles ties within one millisecond.
    add('e.created_at <= ?::timestamptz', c.createdAt);
    add('(e.created_at, e.transfer_id, e.account, p.part) < (?::timestamptz, ?, ?, ?)', c.createdAt, c.transferId, BALANCE_ACCOUNTS[c.balance], c.part);
  }
  const rows = await orm.em.fork().execute<{ transfer_id: string; account: string; kind: string; resource_id: string; currency: string; amount: string; fee: string; part: BalancePart; created_at: Date | string }[]>(
    `select e.transfer_id, e.account, e.kind, e.resource_id, e.currency, e.amount::text as amount, f.fee::text as fee, p.part, e.created_at
     from ledger_entries e
     cross join lateral (
       select coalesce(sum(x.amount), 0) as fee from ledger_entries x
       where e.kind in (${literals(FEE_KINDS)}) and x.transfer_id = e.transfer_id and x.account in (${literals(FEE_ACCOUNTS)})) f
     cross join lateral (
       select ''::text as part
       union all
       select 'fee'::text where e.kind = ${literal(FEE_SPLIT.kind)} and e.account = ${literal(FEE_SPLIT.account)} and f.fee <> 0) p
     where e.merchant_id = ? and e.environment = ? and e.account in (${MERCHANT_ACCOUNTS})${clauses.map((c) => ` and ${c}`).join('')}
     order by e.created_at desc, e.transfer_id desc, e.account desc, p.part desc
     limit ?`,
    [scope.merchantId, scope.environment, ...params, query.limit + 1],
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
