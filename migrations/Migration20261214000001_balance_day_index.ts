import { Migration } from '@mikro-orm/migrations';

/**
 * A balance's postings by date (issue 34, the portal chart's daily snapshots,
 * src/persistence/ledger/balance-days.ts): a closing day's net, and today's, is one index range of
 * (merchant, environment, account, currency, created_at). Before, the only index on the balance's
 * key stopped at currency, and the planner could fetch every posting of the balance to keep one
 * day's (CI saw 20,008 rows read for a day of 500). It replaces that index: its key is this one's
 * prefix, so every read that used it uses this one.
 *
 * Built at start-up in the migration's transaction (a SHARE lock on ledger_entries while it builds:
 * seconds per few million postings). On a large ledger build it beforehand with
 * `create index concurrently <the same definition>`: this statement then finds it and does nothing.
 *
 * Frozen once landed.
 */
export class Migration20261214000001_balance_day_index extends Migration {
  override name = 'Migration20261214000001_balance_day_index';

  override up(): void {
    this.addSql(`set local statement_timeout = 0`);
    this.addSql(`create index if not exists ledger_entries_balance_day on ledger_entries (merchant_id, environment, account, currency, created_at)`);
    this.addSql(`drop index if exists ledger_entries_balance`);
  }
}
