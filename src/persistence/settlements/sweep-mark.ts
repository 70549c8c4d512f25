import type { EntityManager } from '@mikro-orm/postgresql';
import { ACCOUNTS } from '../../domain/ledger';

/**
 * The settlement sweep's high-water mark (issue 34): per balance (merchant, environment, currency of
 * merchant_available), `settlement_sweep_marks.unswept_from`, a posting date. Every posting of the
 * balance dated before it is swept, so a sweep reads only the postings dated at or after it, on the
 * index ledger_entries_merchant_history: its cost is the balance's new postings, not its history.
 *
 * Why a date and not a posting id, and why no posting can commit behind the mark (a posting with an
 * earlier position committing after the mark has passed it):
 *
 * - every writer of a merchant_available posting moves the balance row first (writeStateChange:
 *   addToBalances, then appendEvent inserts the postings), so it holds the row lock that the sweep
 *   takes FOR UPDATE before it inserts any posting;
 * - a posting is dated by the database once its transaction holds the merchant's event counter, i.e.
 *   after it holds the balance row (event-log.ts), with clock_timestamp();
 * - the sweep moves the mark to the date of its own available posting, the last one it writes, in
 *   its transaction. A posting of the balance not seen by that sweep is written by a transaction that
 *   got the balance row after the sweep committed, so it is dated later, at or after the mark (equal
 *   within one millisecond: the mark is inclusive, and postings already swept at that date are
 *   skipped by the settlement_entries check every sweep keeps).
 *
 * A sequence number (nextval) would be handed out in the same lock order and would need a new column
 * and index on ledger_entries, the busiest table; the date is already there, indexed, and dated in
 * that order. Its one assumption is that the database server's clock does not step backwards (the
 * balance transactions list makes the same). If it ever did, or a posting was written outside
 * writeStateChange (test funding, a seeding script) behind the mark, the postings at or after the
 * mark would not add up to the balance row; the sweep then reads the whole unswept set once, as it
 * did before the mark (UNSWEPT), and sweeps that when it adds up: money is never skipped, it only
 * costs the one rescan. `ledger check` keeps checking the whole unswept set against the balance.
 */

const AVAILABLE = ACCOUNTS.merchantAvailable;

/** The balance's unswept merchant_available postings (parameters: merchant, environment, currency). The full scan: the fallback. */
export const UNSWEPT = `from ledger_entries le
  where le.merchant_id = ? and le.environment = ? and le.currency = ? and le.account = '${AVAILABLE}'
    and not exists (select 1 from settlement_entries se where se.transfer_id = le.transfer_id and se.account = le.account)`;

/**
 * The balance's unswept postings dated at or after the mark (parameters: merchant, environment,
 * currency, mark). The account is a literal so the planner sees the partial index's predicate.
 */
export const UNSWEPT_SINCE_MARK = `${UNSWEPT} and le.created_at >= ?::timestamptz`;

export interface UnsweptSet {
  /** The FROM/WHERE of the set, and its parameters after the scope's three. */
  from: string;
  params: unknown[];
  count: number;
  total: bigint;
  /** True when the postings after the mark did not add up to the balance and the whole unswept set was read. */
  rescanned: boolean;
}

/** The balance's mark (`-infinity` when it has none: never swept since migration 20261212000001). Called under the balance row lock. */
export async function readSweepMark(em: EntityManager, scope: readonly [string, string, string]): Promise<string> {
  const rows = await em.execute<{ mark: string }[]>(`select unswept_from::text as mark from settlement_sweep_marks where merchant_id = ? and environment = ? and currency = ?`, [...scope]);
  return rows[0]?.mark ?? '-infinity';
}

/**
 * The unswept postings the sweep takes, under the balance row lock: those at or after the mark when
 * they add up to `balance`, else the whole unswept set (see above), whatever it adds up to (the caller
 * compares it with the balance and refuses a mismatch).
 */
export async function unsweptSet(em: EntityManager, scope: readonly [string, string, string], balance: bigint): Promise<UnsweptSet> {
  const mark = await readSweepMark(em, scope);
  const sum = async (from: string, params: unknown[]) => {
    const [row] = await em.execute<{ n: number; total: string }[]>(`select count(*)::int as n, coalesce(sum(le.amount), 0)::text as total ${from}`, [...scope, ...params]);
    return { count: Number(row.n), total: BigInt(row.total) };
  };
  const since = await sum(UNSWEPT_SINCE_MARK, [mark]);
  if (since.total === balance) return { from: UNSWEPT_SINCE_MARK, params: [mark], ...since, rescanned: false };
  return { from: UNSWEPT, params: [], ...(await sum(UNSWEPT, [])), rescanned: true };
}

/** Moves the balance's mark to the date of the sweep's own available posting (`sweepTransferId`), in the sweep's transaction. */
export async function advanceSweepMark(em: EntityManager, scope: readonly [string, string, string], sweepTransferId: string): Promise<void> {
  const rows = await em.execute<{ n: number }[]>(
    `with moved as (
       insert into settlement_sweep_marks (merchant_id, environment, currency, unswept_from, updated_at)
       select ?, ?, ?, le.created_at, now() from ledger_entries le where le.transfer_id = ? and le.account = '${AVAILABLE}'
       on conflict (merchant_id, environment, currency) do update set unswept_from = excluded.unswept_from, updated_at = excluded.updated_at
       returning 1)
     select count(*)::int as n from moved`,
    [...scope, sweepTransferId],
  );
  if (Number(rows[0].n) !== 1) throw new Error(`sweep ${sweepTransferId}: its available posting was not found to move the sweep mark`);
}
