import { Migration } from '@mikro-orm/migrations';

/**
 * The partner's own id of a live payment (issue 29): its status's `financialTransactionId`, or its
 * statement line's, kept beside our reference. The first one seen is kept (rail-request-store.ts
 * recordPartnerTransactionId); reconciliation reports a different one.
 *
 * Frozen once landed.
 */
export class Migration20261204000001_partner_transaction_id extends Migration {
  override name = 'Migration20261204000001_partner_transaction_id';

  override up(): void {
    this.addSql(`alter table rail_references add column if not exists partner_transaction_id text null`);
  }
}
