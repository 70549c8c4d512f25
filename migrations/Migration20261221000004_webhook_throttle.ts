import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 49, per-endpoint throttle (src/domain/webhook-throttle.ts, src/persistence/webhooks/webhook-throttle-store.ts):
 *
 * - `max_per_second`, `max_in_flight` on an endpoint: null (the default) is no limit.
 * - `throttle_next_at`: the endpoint's next free send slot; each throttled send reserves one and moves
 *   it on by 1 / max_per_second, so every process's sends share one schedule.
 * - `throttle_recent`: when the sends of the last second were let go (at most max_per_second): a send
 *   that comes late for its slot waits until fewer than max_per_second went in the second before it.
 * - `throttle_slot_at`, `throttle_slot_attempt` on a delivery: the slot its attempt reserved; the
 *   retry that comes back for it finds it and sends then, so the waiting ones keep their turn.
 * - `webhook_send_leases`: one row per send under way to an endpoint with `max_in_flight`, until it
 *   is answered (or `expires_at`: a worker that died mid-send does not hold its lease for ever).
 *
 * Frozen once landed.
 */
export class Migration20261221000004_webhook_throttle extends Migration {
  override name = 'Migration20261221000004_webhook_throttle';

  override up(): void {
    this.addSql(`alter table webhook_endpoints
      add column max_per_second integer null check (max_per_second between 1 and 1000),
      add column max_in_flight integer null check (max_in_flight between 1 and 100),
      add column throttle_next_at timestamptz null,
      add column throttle_recent timestamptz[] not null default '{}'`);
    this.addSql(`alter table webhook_deliveries add column throttle_slot_at timestamptz null, add column throttle_slot_attempt integer null`);
    this.addSql(`create table webhook_send_leases (
      delivery_id text not null,
      attempt integer not null,
      endpoint_id text not null,
      expires_at timestamptz not null,
      primary key (delivery_id, attempt))`);
    this.addSql(`create index webhook_send_leases_endpoint on webhook_send_leases (endpoint_id, expires_at)`);
  }
}
