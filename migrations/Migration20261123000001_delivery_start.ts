import { Migration } from '@mikro-orm/migrations';

/**
 * `workflow_started_at`: set once a delivery's workflow is known to exist (started, or found already
 * started). A pending delivery with no attempt and no confirmed workflow is started by the outbox
 * relay's sweep (a replay whose start failed or timed out, a fan-out pass cut short). Rows from before
 * this migration stay null: the sweep only looks at pending rows without an attempt, and starting an
 * existing workflow again does nothing. Frozen once landed.
 */
export class Migration20261123000001_delivery_start extends Migration {
  override name = 'Migration20261123000001_delivery_start';

  override up(): void {
    this.addSql(`alter table webhook_deliveries add column workflow_started_at timestamptz null`);
    this.addSql(`create index webhook_deliveries_unstarted on webhook_deliveries (created_at)
      where status = 'pending' and attempt_count = 0 and workflow_started_at is null`);
  }
}
