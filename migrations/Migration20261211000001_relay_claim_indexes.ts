import { Migration } from '@mikro-orm/migrations';

/**
 * The relays' claims read an index, not the table (issue 34, "A backlog after an outage"):
 * - `events_undispatched_scope`: the webhook outbox relay's fair claim walks the merchants (and
 *   environments) with undispatched events through it, one index descent each, and takes each one's
 *   oldest events from it (outbox-claim.ts), instead of numbering every undispatched event;
 * - `notification_outbox_claim`: the notification relay's claim, oldest first, reads it in order and
 *   stops at its batch, instead of sorting the whole outbox;
 * - `*_workflow_unstarted_open`: the start relays' and the monitor's unstarted payments, with the
 *   status the relay takes in the predicate, so a payment that ended without its start being confirmed
 *   (a crash between the start and its record) is not walked past on every pass for ever. They replace
 *   `*_workflow_unstarted`, whose predicate was the start alone.
 *
 * Built at start-up in the migration's transaction. On a large table build them beforehand with
 * `create index concurrently <the same definition>`: these statements then find them and do nothing.
 *
 * Frozen once landed.
 */
export class Migration20261211000001_relay_claim_indexes extends Migration {
  override name = 'Migration20261211000001_relay_claim_indexes';

  override up(): void {
    this.addSql(`create index if not exists events_undispatched_scope on events (merchant_id, environment, created_at, id) where dispatched_at is null`);
    this.addSql(`create index if not exists notification_outbox_claim on notification_outbox (created_at, event_id)`);
    this.addSql(`create index if not exists charges_workflow_unstarted_open on charges (created_at)
      where workflow_started_at is null and status in ('pending', 'awaiting_action')`);
    this.addSql(`create index if not exists payouts_workflow_unstarted_open on payouts (created_at)
      where workflow_started_at is null and status in ('pending', 'held_for_review')`);
    this.addSql(`create index if not exists refunds_workflow_unstarted_open on refunds (created_at) where workflow_started_at is null and status = 'pending'`);
    this.addSql(`create index if not exists disputes_workflow_unstarted_open on disputes (created_at)
      where workflow_started_at is null and status in ('needs_response', 'under_review')`);
    for (const table of ['charges', 'payouts', 'refunds', 'disputes']) this.addSql(`drop index if exists ${table}_workflow_unstarted`);
  }
}
