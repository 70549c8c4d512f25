import { Migration } from '@mikro-orm/migrations';

/**
 * A payment's events (issue 21: the portal's payment timeline): `events_resource` finds the events
 * about one object of a merchant's environment in sequence order (event-store.ts eventsOfResource),
 * instead of walking the whole log. Built at start-up in the migration's transaction; on a large
 * `events` table, build it beforehand with
 * `create index concurrently events_resource on events (merchant_id, environment, resource_id, sequence)`
 * (this statement then finds it and does nothing).
 *
 * Frozen once landed.
 */
export class Migration20261128000007_events_by_resource extends Migration {
  override name = 'Migration20261128000007_events_by_resource';

  override up(): void {
    this.addSql(`create index if not exists events_resource on events (merchant_id, environment, resource_id, sequence)`);
  }
}
