import { Migration } from '@mikro-orm/migrations';

/**
 * The event log by type (issue 49, "Filters merchants expect": GET /v1/events?type=…, the portal's
 * Events page): `events_by_type` finds a merchant's environment's events of one type in sequence
 * order, either way, so a filtered page is a few index probes per type (event-store.ts eventsAfter,
 * eventsNewestFirst) instead of a walk of the whole log past every other type.
 *
 * Built at start-up in the migration's transaction. On a large `events` table build it beforehand
 * with `create index concurrently events_by_type on events (merchant_id, environment, type, sequence)`:
 * this statement then finds it and does nothing.
 *
 * Frozen once landed.
 */
export class Migration20261221000001_events_by_type extends Migration {
  override name = 'Migration20261221000001_events_by_type';

  override up(): void {
    this.addSql(`create index if not exists events_by_type on events (merchant_id, environment, type, sequence)`);
  }
}
