import { Migration } from '@mikro-orm/migrations';

/**
 * Each balance's sweep mark from the ledger: its oldest unswept available posting's date, else (every
 * posting swept) its newest posting's, else `-infinity`. Ends with the `where` on the balance rows,
 * so a test may narrow it to one merchant (`and b.merchant_id = ?`).
 */
export const SWEEP_MARKS_BACKFILL = `insert into settlement_sweep_marks (merchant_id, environment, currency, unswept_from, updated_at)
  select b.merchant_id, b.environment, b.currency, coalesce(u.first_unswept, a.last_posted, '-infinity'), now()
  from account_balances b
  cross join lateral (
    select min(le.created_at) as first_unswept from ledger_entries le
    where le.merchant_id = b.merchant_id and le.environment = b.environment and le.currency = b.currency and le.account = 'merchant_available'
      and not exists (select 1 from settlement_entries se where se.transfer_id = le.transfer_id and se.account = le.account)) u
  cross join lateral (
    select max(le.created_at) as last_posted from ledger_entries le
    where le.merchant_id = b.merchant_id and le.environment = b.environment and le.currency = b.currency and le.account = 'merchant_available') a
  where b.account = 'merchant_available'`;

/**
 * Issue 34, "make the costly paths incremental":
 *
 * - `settlement_sweep_marks`: per balance (merchant, environment, currency of merchant_available),
 *   `unswept_from`, the sweep's high-water mark: every merchant_available posting of the balance
 *   dated before it is already swept (marked in settlement_entries), so a sweep reads only the
 *   postings dated at or after it (src/persistence/settlements/sweep-mark.ts says why no posting can
 *   commit behind it). Moved by each sweep, in the sweep's transaction, under the balance row lock.
 *   No row: the balance was never swept since this migration; its sweep reads from the beginning.
 *   Backfilled here from the ledger: the oldest unswept posting's date, or, when every posting is
 *   swept, the newest posting's date.
 * - `balance_days`: one row per balance account per closed UTC day (merchant_available only for
 *   now: the portal's 30-day chart), the day's net movement and the balance at its end. Written
 *   lazily by the chart's read for days that have closed (src/persistence/ledger/balance-days.ts),
 *   never updated. Not backfilled: the first view of a balance's chart writes its window's days.
 *
 * Frozen once landed.
 */
export class Migration20261212000001_sweep_marks_balance_days extends Migration {
  override name = 'Migration20261212000001_sweep_marks_balance_days';

  override up(): void {
    // The backfill reads every merchant_available posting once: no 20 s statement limit.
    this.addSql(`set local statement_timeout = 0`);
    this.addSql(`create table settlement_sweep_marks (
      merchant_id text not null,
      environment text not null check (environment in ('sandbox','live')),
      currency text not null,
      unswept_from timestamptz not null,
      updated_at timestamptz not null,
      primary key (merchant_id, environment, currency))`);
    this.addSql(SWEEP_MARKS_BACKFILL);
    this.addSql(`create table balance_days (
      merchant_id text not null,
      environment text not null check (environment in ('sandbox','live')),
      currency text not null,
      account text not null check (account in ('merchant_available')),
      day date not null,
      net bigint not null,
      close bigint not null,
      created_at timestamptz not null default now(),
      primary key (merchant_id, environment, currency, account, day))`);
  }
}
