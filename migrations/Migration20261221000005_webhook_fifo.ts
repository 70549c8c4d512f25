import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 49, ordered delivery per endpoint (src/domain/webhook-fifo.ts):
 *
 * - `delivery_order` on an endpoint: `unordered` (the default, as before) or `fifo`.
 * - `fifo_sequence` on a delivery: its event's sequence, set when the delivery was written for an
 *   endpoint that was FIFO then; the endpoint's FIFO workflow sends only these, in this order. A
 *   delivery without it is sent by its own workflow, as before, whatever the endpoint says now.
 * - `webhook_deliveries_fifo_waiting`: the waiting ones of an endpoint in order (the workflow's read,
 *   the health's count and since when, a skip by sequence).
 *
 * Frozen once landed.
 */
export class Migration20261221000005_webhook_fifo extends Migration {
  override name = 'Migration20261221000005_webhook_fifo';

  override up(): void {
    this.addSql(`alter table webhook_endpoints add column delivery_order text not null default 'unordered' check (delivery_order in ('unordered', 'fifo'))`);
    this.addSql(`alter table webhook_deliveries add column fifo_sequence bigint null`);
    this.addSql(`create index webhook_deliveries_fifo_waiting on webhook_deliveries (endpoint_id, fifo_sequence) where fifo_sequence is not null and status = 'pending'`);
  }
}
