import { Migration } from '@mikro-orm/migrations';

/**
 * The status gate's check that one partner transaction pays one payment (issue 43, Low:
 * "financialTransactionId is not unique across payments"; src/persistence/payment-gate.ts
 * transactionPaidAnother) looks up the partner's SUCCESSFULs by product and transaction id. Not a
 * unique index: one payment's status, callback and statement line name the same id, and rows
 * recorded before may already repeat one (the gate refuses the next end on it, it rewrites nothing).
 *
 * Frozen once landed.
 */
export class Migration20261215000042_rail_answers_partner_transaction extends Migration {
  override name = 'Migration20261215000042_rail_answers_partner_transaction';

  override up(): void {
    this.addSql(
      `create index if not exists rail_answers_partner_transaction on rail_answers (product, partner_transaction_id) where outcome = 'succeeded' and partner_transaction_id is not null`,
    );
  }
}
