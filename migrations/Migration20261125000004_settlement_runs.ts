import { Migration } from '@mikro-orm/migrations';

/**
 * Settlement runs (issue 11). `settlement_skips` keeps, per balance (merchant, environment,
 * currency), the latest reason a settlement run did not start a batch for it (today: the merchant
 * has no settlement account), with the run and the time: `settlements skipped` reads it, so an
 * operator can see why a merchant was not settled. Written by the run's page step
 * (src/persistence/settlements/settlement-skips.ts); a later run that does start a batch for the balance deletes
 * its row.
 *
 * The run pages through account_balances by its primary key (merchant_id, environment, currency,
 * account), filtering `account = 'merchant_available' and amount > 0`; no index of its own: a
 * partial index on `amount > 0` would cost every balance update its HOT update (amount would become
 * an indexed column) to speed up a once-a-day scan. Frozen once landed.
 */
export class Migration20261125000004_settlement_runs extends Migration {
  override name = 'Migration20261125000004_settlement_runs';

  override up(): void {
    this.addSql(`create table settlement_skips (
      merchant_id text not null references merchants(id),
      environment text not null check (environment in ('sandbox','live')),
      currency text not null,
      reason text not null,
      run_id text not null,
      skipped_at timestamptz not null,
      primary key (merchant_id, environment, currency))`);
  }
}
