import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 34, retention: the retention workflow (workflows/retention.ts, src/persistence/retention-store.ts)
 * deletes ended webhook deliveries (with their attempts) and ended notifications (with theirs) past
 * their windows, oldest first, in bounded batches. Each batch reads its rows through:
 *
 * - `webhook_deliveries_created_at` and `notifications_created_at`: the oldest rows first, so a batch
 *   reads only the rows it deletes (without them every batch would scan the whole table);
 * - `webhook_deliveries_replay_of` (replays only: small): a delivery a kept replay still refers to
 *   (`replay_of`) is kept, and this finds those replays without a scan.
 *
 * Not CONCURRENTLY (the migrator runs in one transaction): each build holds a SHARE lock on its table
 * (fan-out and attempt records wait) for one pass over it. For a large table, build them by hand
 * first, outside a transaction, with the exact definitions below, and this migration then finds them:
 *
 *   create index concurrently webhook_deliveries_created_at on webhook_deliveries (created_at);
 *   create index concurrently webhook_deliveries_replay_of on webhook_deliveries (replay_of) where replay_of is not null;
 *   create index concurrently notifications_created_at on notifications (created_at);
 *
 * An invalid leftover of a failed concurrent build is dropped and built again. Frozen once landed.
 */
export class Migration20261210000001_retention_indexes extends Migration {
  override name = 'Migration20261210000001_retention_indexes';

  override up(): void {
    this.addSql(`set local statement_timeout = 0`);
    for (const [name, definition] of [
      ['webhook_deliveries_created_at', 'on webhook_deliveries (created_at)'],
      ['webhook_deliveries_replay_of', 'on webhook_deliveries (replay_of) where replay_of is not null'],
      ['notifications_created_at', 'on notifications (created_at)'],
    ]) {
      this.addSql(`do $$ begin
        if exists (select 1 from pg_index where indexrelid = to_regclass('${name}') and not indisvalid) then
          drop index ${name};
        end if;
      end $$`);
      this.addSql(`create index if not exists ${name} ${definition}`);
    }
  }
}
