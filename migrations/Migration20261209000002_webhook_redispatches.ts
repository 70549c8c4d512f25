import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 32, deliveries that never end: a delivery whose workflow run closed without ending it (failed,
 * terminated, cancelled, timed out) is started again by the outbox relay, from its next attempt
 * (src/webhooks/closed-deliveries.ts). `redispatches` counts those new runs; past the bound the
 * delivery is recorded failed instead, for an operator to look at and replay.
 *
 * Frozen once landed.
 */
export class Migration20261209000002_webhook_redispatches extends Migration {
  override name = 'Migration20261209000002_webhook_redispatches';

  override up(): void {
    this.addSql(`alter table webhook_deliveries add column redispatches integer not null default 0 check (redispatches >= 0)`);
  }
}
