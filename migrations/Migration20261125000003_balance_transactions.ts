import { Migration } from '@mikro-orm/migrations';

/**
 * Balance transactions (issue 11): the index GET /v1/balance-transactions pages on
 * (src/persistence/ledger/balance-transaction-store.ts): a merchant's postings on available and reserved, in
 * the list's order (created_at, transfer_id, account, all descending). Partial: the other accounts'
 * postings (customer clearing, pending, fees, clearing accounts) are never listed.
 *
 * Not CONCURRENTLY: the migrator runs every pending migration in one transaction (orm.ts:
 * `transactional`, `allOrNothing`), where CREATE INDEX CONCURRENTLY is refused, and a migration opted
 * out of its transaction would run on another connection, outside the one that may have just created
 * ledger_entries, and wait on it. The trade-off: the build holds a SHARE lock on ledger_entries, so
 * money movement (every ledger write) waits until it finishes; seconds per few million postings.
 * For a large ledger, build it by hand first, outside a transaction, with the exact definition below:
 *
 *   create index concurrently ledger_entries_merchant_history on ledger_entries
 *     (merchant_id, environment, created_at desc, transfer_id desc, account desc)
 *     where account in ('merchant_available', 'merchant_reserved');
 *
 * and this migration then finds it and does nothing. An invalid leftover of a failed concurrent build
 * is dropped and built again. Frozen once landed.
 */
export class Migration20261125000003_balance_transactions extends Migration {
  override name = 'Migration20261125000003_balance_transactions';

  override up(): void {
    // The build reads the whole ledger: no 20 s statement limit for this migration.
    this.addSql(`set local statement_timeout = 0`);
    this.addSql(`do $$ begin
      if exists (select 1 from pg_index where indexrelid = to_regclass('ledger_entries_merchant_history') and not indisvalid) then
        drop index ledger_entries_merchant_history;
      end if;
    end $$`);
    this.addSql(`create index if not exists ledger_entries_merchant_history on ledger_entries
      (merchant_id, environment, created_at desc, transfer_id desc, account desc)
      where account in ('merchant_available', 'merchant_reserved')`);
  }
}
