import { Migration } from '@mikro-orm/migrations';

/**
 * `idempotency_keys_created_at`: the retention job (src/runtime/idempotency-retention.ts) deletes
 * records past IDEMPOTENCY_RETENTION oldest first, in batches; without this index each batch would
 * scan the whole table. A plain index on created_at (never updated) keeps the claim → done update
 * HOT-eligible. The table had no retention before this, so it may be large: no 20 s statement limit,
 * and an operator may build the index beforehand with `create index concurrently
 * idempotency_keys_created_at on idempotency_keys (created_at)` (then this migration does nothing).
 * Frozen once landed.
 */
export class Migration20261124000001_idempotency_retention extends Migration {
  override name = 'Migration20261124000001_idempotency_retention';

  override up(): void {
    this.addSql(`set local statement_timeout = 0`);
    this.addSql(`create index if not exists idempotency_keys_created_at on idempotency_keys (created_at)`);
  }
}
