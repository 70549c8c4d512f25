import { Migration } from '@mikro-orm/migrations';

/**
 * An endpoint's deliveries by status (GET /v1/webhook-endpoints/:id/deliveries?status=…, the portal's
 * endpoint page), in the list's order (issue 34, "A million rows per merchant"): a rare status (the
 * failed ones among 300,000) is one index range, where before the list walked the endpoint's (or
 * every endpoint's, by created_at) deliveries past every other status.
 *
 * Built at start-up in the migration's transaction. On a large table build it beforehand with
 * `create index concurrently <the same definition>`: this statement then finds it and does nothing.
 *
 * Frozen once landed.
 */
export class Migration20261213000002_delivery_status_index extends Migration {
  override name = 'Migration20261213000002_delivery_status_index';

  override up(): void {
    this.addSql(`create index if not exists webhook_deliveries_endpoint_status on webhook_deliveries (endpoint_id, status, created_at desc, id desc)`);
  }
}
