import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 46: a merchant's own routes (`merchants set ID --routes TEXT`, audited as a setting that moves
 * money): RAIL_ROUTES' syntax (src/domain/rail-routes.ts), each of its routes taking the place of the
 * start's route of the same channel and currency for this merchant's new live payments. Null: the
 * start's routes.
 *
 * Frozen once landed.
 */
export class Migration20261217000002_merchant_routes extends Migration {
  override name = 'Migration20261217000002_merchant_routes';

  override up(): void {
    this.addSql(`alter table merchants add column if not exists rail_routes text null check (rail_routes is null or length(rail_routes) between 1 and 2000)`);
  }
}
