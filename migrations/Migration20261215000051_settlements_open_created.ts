import { Migration } from '@mikro-orm/migrations';

/**
 * `payments stuck` lists pending settlement batches whose workflow is closed or missing (issue 43:
 * a batch terminated by the server's history limit kept its money in transit, with nothing to finish
 * it): `settlements_open_created` reads the open batches only, as payouts_open_created and its
 * siblings do for payouts, refunds and disputes (Migration20261213000001_list_filter_indexes).
 * Frozen once landed.
 */
export class Migration20261215000051_settlements_open_created extends Migration {
  override name = 'Migration20261215000051_settlements_open_created';

  override up(): void {
    this.addSql(`create index if not exists settlements_open_created on settlements (created_at) where status = 'pending'`);
  }

  override down(): void {
    this.addSql(`drop index if exists settlements_open_created`);
  }
}
