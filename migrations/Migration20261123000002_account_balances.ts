import { Migration } from '@mikro-orm/migrations';

/**
 * One balance row per ledger account (merchant, environment, currency, account), moved in the same
 * transaction as the account's postings, so GET /v1/balances reads rows instead of summing the ledger.
 * `amount` is bigint: exact, and a sum past 2^63 - 1 raises SQLSTATE 22003 instead of wrapping.
 * Backfilled from ledger_entries under a SHARE lock (writers of entries wait for the backfill, so none
 * is missed). Frozen once landed.
 */
export class Migration20261123000002_account_balances extends Migration {
  override name = 'Migration20261123000002_account_balances';

  override up(): void {
    // The backfill reads the whole ledger: no 20 s statement limit for this migration.
    this.addSql(`set local statement_timeout = 0`);
    this.addSql(`create table account_balances (
      merchant_id text not null,
      environment text not null check (environment in ('sandbox','live')),
      currency text not null,
      account text not null,
      amount bigint not null,
      updated_at timestamptz not null,
      primary key (merchant_id, environment, currency, account))`);
    this.addSql(`lock table ledger_entries in share mode`);
    this.addSql(`insert into account_balances (merchant_id, environment, currency, account, amount, updated_at)
      select merchant_id, environment, currency, account, sum(amount)::bigint, now()
      from ledger_entries group by merchant_id, environment, currency, account`);
  }
}
