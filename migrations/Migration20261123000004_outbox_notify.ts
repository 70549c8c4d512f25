import { Migration } from '@mikro-orm/migrations';

/**
 * Wakes the webhook outbox relay as soon as an event commits: an AFTER INSERT trigger on `events`
 * sends `NOTIFY payments_outbox` (empty payload) when the event's merchant has an active endpoint in
 * its environment. PostgreSQL sends a notification only when its transaction commits, and folds
 * identical ones of one transaction into one, so a state change sends one wake-up, after its event is
 * visible, and a rolled-back one sends none. The trigger runs at the event insert, which is already
 * the last write of a state change (counter, then event, then commit): no extra round trip, no row
 * held longer. Events nobody receives are not announced: a notifying commit takes PostgreSQL's
 * notification queue lock, which serialises such commits across merchants, so merchants without
 * webhooks do not pay for it; the relay's poll fans those out (to skipped deliveries at most).
 * Frozen once landed.
 */
export class Migration20261123000004_outbox_notify extends Migration {
  override name = 'Migration20261123000004_outbox_notify';

  override up(): void {
    this.addSql(`create function payments_outbox_notify() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from webhook_endpoints
                   where merchant_id = new.merchant_id and environment = new.environment and deleted_at is null and status = 'active') then
          perform pg_notify('payments_outbox', '');
        end if;
        return null;
      end
    $$`);
    this.addSql(`create trigger events_outbox_notify after insert on events for each row execute function payments_outbox_notify()`);
  }
}
