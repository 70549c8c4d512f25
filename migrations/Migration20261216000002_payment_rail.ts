import { Migration } from '@mikro-orm/migrations';

/**
 * Which partner a payment went to (issue 45, "Which partner takes what"): `rail` on charges, payouts,
 * refunds and settlement batches (`momo`, `aggregator`, or `sandbox`), decided once at creation from
 * RAIL_ROUTES (src/domain/rail-routes.ts) and shown by the API; and `partner` on rail_references,
 * copied from the payment when its reference is chosen, which the routed rail reads to send every
 * later call about that reference to the same partner (src/rail/routed-rail.ts).
 *
 * Nullable, without a default: adding them rewrites nothing. A row from before has none: a live one
 * went to the mobile-money partner (the only one there was), a sandbox one to the sandbox; readers
 * say so (`coalesce`).
 *
 * Frozen once landed.
 */
export class Migration20261216000002_payment_rail extends Migration {
  override name = 'Migration20261216000002_payment_rail';

  override up(): void {
    for (const table of ['charges', 'payouts', 'refunds', 'settlements']) {
      this.addSql(`alter table ${table} add column if not exists rail text null check (rail in ('momo', 'aggregator', 'sandbox'))`);
    }
    this.addSql(`alter table rail_references add column if not exists partner text null check (partner in ('momo', 'aggregator'))`);
  }
}
