import { Migration } from '@mikro-orm/migrations';

/**
 * The index the API's metrics sampler reads the webhook backlog through (src/persistence/monitor-backlogs.ts:
 * `payments_webhook_backlog`, `payments_webhook_oldest_pending_age_seconds`): only the pending
 * deliveries, so counting them every METRICS_SAMPLE_INTERVAL never scans the whole (ever growing)
 * table. Small: a delivery leaves it when it succeeds, fails for good or is skipped.
 *
 * Not CONCURRENTLY (the migrator runs in one transaction; see Migration20261125000003_balance_transactions):
 * the build holds a SHARE lock on webhook_deliveries, so fan-out and attempt records wait until it
 * finishes (one pass over the table). For a large table, build it by hand first, outside a
 * transaction, with the exact definition below, and this migration then finds it:
 *
 *   create index concurrently webhook_deliveries_pending on webhook_deliveries (environment) where status = 'pending';
 *
 * An invalid leftover of a failed concurrent build is dropped and built again. Frozen once landed.
 */
export class Migration20261127000001_webhook_deliveries_pending extends Migration {
  override name = 'Migration20261127000001_webhook_deliveries_pending';

  override up(): void {
    this.addSql(`set local statement_timeout = 0`);
    this.addSql(`do $$ begin
      if exists (select 1 from pg_index where indexrelid = to_regclass('webhook_deliveries_pending') and not indisvalid) then
        drop index webhook_deliveries_pending;
      end if;
    end $$`);
    this.addSql(`create index if not exists webhook_deliveries_pending on webhook_deliveries (environment) where status = 'pending'`);
  }
}
