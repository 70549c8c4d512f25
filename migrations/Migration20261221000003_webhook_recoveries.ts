import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 49, "Recover everything since a time": `POST /v1/webhook-endpoints/{id}/recover`.
 *
 * - `webhook_recoveries`: one row per recovery (`whr_…`, also its workflow id): the endpoint, `since`,
 *   the range of event sequences it walks (`after_sequence` exclusive, the first event at or after
 *   `since` being the next; `until_sequence` the merchant's last event when it was asked), how far the
 *   walk is (`cursor_sequence`), the resends counted when asked (`total`, exact once `queued_at` is
 *   set) and queued so far, and `workflow_started_at` (the relay's sweep starts a recovery whose start
 *   did not happen, as it does deliveries).
 * - `webhook_deliveries.recovery_id`: the recovery a resend belongs to (null for every other delivery),
 *   unique with the event: a page retried after its commit never queues an event twice within one
 *   recovery. The foreign key is added NOT VALID: every existing row is null, nothing to check.
 * - `webhook_deliveries_event_replays`: the replays of an event to an endpoint (the fan-out delivery
 *   has its own unique index), so "the last delivery of this event to this endpoint" is two index
 *   probes. Small: replays only.
 *
 * Both indexes on webhook_deliveries are built in the migration's transaction (a SHARE lock while
 * they build: fan-out and attempt records wait). On a large table build them beforehand with
 * `create index concurrently` and the exact definitions below; these statements then find them.
 *
 * Frozen once landed.
 */
export class Migration20261221000003_webhook_recoveries extends Migration {
  override name = 'Migration20261221000003_webhook_recoveries';

  override up(): void {
    this.addSql(`create table webhook_recoveries (
      id text primary key,
      endpoint_id text not null references webhook_endpoints(id),
      merchant_id text not null,
      environment text not null check (environment in ('sandbox','live')),
      since timestamptz(3) not null,
      after_sequence bigint not null,
      until_sequence bigint not null,
      cursor_sequence bigint not null,
      total integer not null check (total >= 0),
      queued integer not null default 0 check (queued >= 0),
      pages integer not null default 0,
      queued_at timestamptz(3) null,
      workflow_started_at timestamptz null,
      created_at timestamptz(3) not null)`);
    this.addSql(`create index webhook_recoveries_endpoint on webhook_recoveries (endpoint_id, created_at desc, id desc)`);
    this.addSql(`create index webhook_recoveries_unstarted on webhook_recoveries (created_at) where workflow_started_at is null`);
    this.addSql(`alter table webhook_deliveries add column recovery_id text null`);
    this.addSql(`alter table webhook_deliveries add constraint webhook_deliveries_recovery_id_fkey foreign key (recovery_id) references webhook_recoveries(id) not valid`);
    this.addSql(`create unique index if not exists webhook_deliveries_recovery on webhook_deliveries (recovery_id, event_id) where recovery_id is not null`);
    this.addSql(`create index if not exists webhook_deliveries_event_replays on webhook_deliveries (event_id, endpoint_id, created_at) where replay_of is not null`);
  }
}
