import { Migration } from '@mikro-orm/migrations';

/**
 * Notifications (issue 20; docs/notifications.md):
 *
 * - `merchants.notification_email`: where the merchant's emails go (`merchants create --email`,
 *   `merchants set --notification-email`); null: its notifications are recorded as skipped.
 * - `notification_outbox`: one row per event that notifies someone, written by a trigger in the
 *   event's own transaction (so nothing is lost and nothing is written for a rolled-back change), and
 *   deleted by the worker's notification relay once it has fanned the event out. Only the five types
 *   that notify are queued; events written before this migration are not (no flood at deploy).
 * - `notifications`: one row per message, id (`ntf_…`) fixed by its source and recipient (an event
 *   and `customer` or `merchant`, or a dispute for its deadline reminder), so a relay that runs a
 *   pass again writes nothing twice and starts no workflow twice. `channel` and `to_masked` say where
 *   it goes (the address itself is read when sending: the merchant's email, or the charge's customer
 *   identifier sealed in `payment_parties`). Status `pending` → `sent` | `failed` | `skipped` (no
 *   address, nothing to send: never retried).
 * - `notification_attempts`: one row per attempt of the notification's workflow; a retried activity
 *   answers the attempt recorded and never sends it twice.
 * - `disputes_open_deadline`: the relay's scan for disputes whose evidence is due soon.
 *
 * Frozen once landed.
 */
export class Migration20261128000004_notifications extends Migration {
  override name = 'Migration20261128000004_notifications';

  override up(): void {
    this.addSql(`alter table merchants add column notification_email text null check (char_length(notification_email) between 3 and 254)`);
    this.addSql(`create table notification_outbox (
      event_id text primary key,
      created_at timestamptz not null default now(),
      lease_until timestamptz null)`);
    this.addSql(`create function payments_notification_outbox() returns trigger language plpgsql as $$
      begin
        insert into notification_outbox (event_id) values (new.id) on conflict do nothing;
        return null;
      end
    $$`);
    this.addSql(`create trigger events_notification_outbox after insert on events for each row
      when (new.type in ('transaction.succeeded', 'payout.held_for_review', 'settlement.paid', 'settlement.failed', 'dispute.opened'))
      execute function payments_notification_outbox()`);
    this.addSql(`create table notifications (
      id text primary key,
      merchant_id text not null references merchants(id),
      environment text not null check (environment in ('sandbox','live')),
      kind text not null check (kind in ('charge_receipt','payout_held_for_review','settlement_paid','settlement_failed','dispute_opened','dispute_deadline')),
      recipient text not null check (recipient in ('customer','merchant')),
      source_id text not null,
      resource_id text not null,
      channel text null check (channel in ('email','sms')),
      to_masked text null,
      status text not null check (status in ('pending','sent','failed','skipped')),
      attempt_count integer not null default 0,
      last_error text null,
      provider_message_id text null,
      workflow_started_at timestamptz null,
      created_at timestamptz(3) not null,
      updated_at timestamptz not null,
      completed_at timestamptz null,
      unique (source_id, recipient))`);
    this.addSql(`create index notifications_scope_created on notifications (merchant_id, environment, created_at desc, id desc)`);
    this.addSql(`create index notifications_unstarted on notifications (created_at) where status = 'pending' and workflow_started_at is null`);
    this.addSql(`create table notification_attempts (
      notification_id text not null references notifications(id),
      attempt integer not null check (attempt > 0),
      attempted_at timestamptz not null,
      outcome text not null check (outcome in ('sent','failed')),
      error text null,
      retry_in_ms integer null,
      provider_message_id text null,
      primary key (notification_id, attempt))`);
    this.addSql(`create index disputes_open_deadline on disputes (evidence_due_by) where status = 'needs_response'`);
  }
}
