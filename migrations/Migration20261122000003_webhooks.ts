import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints, deliveries (one per event and endpoint, plus replays) with one row per attempt,
 * and the outbox columns on events that the relay uses to fan each event out. created_at has millisecond
 * precision: list cursors carry it exactly. Frozen once landed.
 */
export class Migration20261122000003_webhooks extends Migration {
  override name = 'Migration20261122000003_webhooks';

  override up(): void {
    this.addSql(`create table webhook_endpoints (
      id text primary key,
      merchant_id text not null references merchants(id),
      environment text not null check (environment in ('sandbox','live')),
      url text not null,
      description text null,
      subscribed_events text[] not null,
      timeout_seconds integer not null check (timeout_seconds between 1 and 30),
      status text not null check (status in ('active','disabled')),
      secret_box text not null,
      previous_secret_box text null,
      previous_secret_expires_at timestamptz null,
      consecutive_failures integer not null default 0,
      failure_streak_started_at timestamptz null,
      last_failure_reason text null,
      last_failure_at timestamptz null,
      auto_disabled_at timestamptz null,
      deleted_at timestamptz null,
      created_at timestamptz(3) not null,
      updated_at timestamptz not null)`);
    this.addSql(`create index webhook_endpoints_scope on webhook_endpoints (merchant_id, environment, created_at desc) where deleted_at is null`);
    this.addSql(`create table webhook_deliveries (
      id text primary key,
      endpoint_id text not null references webhook_endpoints(id),
      event_id text not null references events(id),
      merchant_id text not null,
      environment text not null,
      event_type text not null,
      replay_of text null references webhook_deliveries(id),
      status text not null check (status in ('pending','succeeded','failed','skipped')),
      attempt_count integer not null default 0,
      next_attempt_at timestamptz null,
      last_status_code integer null,
      last_error text null,
      created_at timestamptz(3) not null,
      updated_at timestamptz not null,
      completed_at timestamptz null)`);
    // Fan-out creates exactly one delivery per (event, endpoint); replays are extra rows.
    this.addSql(`create unique index webhook_deliveries_fanout on webhook_deliveries (event_id, endpoint_id) where replay_of is null`);
    this.addSql(`create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id desc)`);
    this.addSql(`create table webhook_attempts (
      delivery_id text not null references webhook_deliveries(id),
      attempt integer not null check (attempt > 0),
      attempted_at timestamptz not null,
      outcome text not null check (outcome in ('succeeded','failed')),
      status_code integer null,
      duration_ms integer not null,
      error text null,
      response_body text null,
      primary key (delivery_id, attempt))`);
    this.addSql(`alter table events add column dispatched_at timestamptz null, add column dispatch_lease_until timestamptz null`);
    // Events written before webhooks existed have nothing to fan out.
    this.addSql(`update events set dispatched_at = created_at`);
    this.addSql(`create index events_undispatched on events (created_at) where dispatched_at is null`);
  }
}
