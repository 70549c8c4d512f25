import { Migration } from '@mikro-orm/migrations';

/**
 * The API's rate-limit counters (src/persistence/merchants/rate-limit-store.ts, issue 20): the table of
 * rate-limiter-flexible's PostgreSQL store, in the exact shape the library would create (`key`
 * primary key, `points`, `expire` in epoch milliseconds); the library is told it exists
 * (`tableCreated: true`) and never runs DDL, so the API's role needs no CREATE. One row per bucket:
 * `rate:` and `burst:` for each merchant and environment, and for each client address that sent a
 * request without a valid key. Each API process deletes rows expired for over an hour every five
 * minutes; nothing else reads it.
 *
 * UNLOGGED: the counters live a second (ten for a burst), so they are not worth a WAL record per
 * request; after a crash PostgreSQL empties the table, which only gives every caller a fresh window.
 * Frozen once landed.
 */
export class Migration20261128000002_rate_limits extends Migration {
  override name = 'Migration20261128000002_rate_limits';

  override up(): void {
    this.addSql(`create unlogged table rate_limits (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint
    )`);
  }
}
