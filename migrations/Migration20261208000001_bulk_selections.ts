import { Migration } from '@mikro-orm/migrations';

/**
 * A bulk operator action's dry run (issue 31, finding 1; src/persistence/operators/bulk-selection-store.ts):
 * one row per dry run, keyed by its token (`opsel_…`), naming the exact payments it showed (`payments`:
 * id, environment and merchant of each, in the order shown), the command and its options, the list
 * query, who ran it, and until when `--yes --token` may use it. Used once: `used_at`, `used_by` and
 * the batch id (`opb_…`) of the run that took it. Rows are pruned 30 days after they expire.
 *
 * Frozen once landed.
 */
export class Migration20261208000001_bulk_selections extends Migration {
  override name = 'Migration20261208000001_bulk_selections';

  override up(): void {
    this.addSql(`create table bulk_selections (
      token text primary key check (token ~ '^opsel_[0-9A-Za-z]{24}$'),
      command text not null,
      query text not null,
      merchant_id text null,
      params jsonb not null,
      payments jsonb not null check (jsonb_typeof(payments) = 'array'),
      created_by text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz null,
      used_by text null,
      batch_id text null
    )`);
    this.addSql(`create index bulk_selections_expires_at on bulk_selections (expires_at)`);
  }
}
