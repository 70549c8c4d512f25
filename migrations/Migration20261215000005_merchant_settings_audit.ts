import { Migration } from '@mikro-orm/migrations';

/**
 * Merchant settings are money (issue 43, finding 6):
 *
 * - `merchants.settlement_held_until`: set when `merchants set` replaces a settlement account (bank
 *   or number) to the change + SETTLEMENT_ACCOUNT_HOLD (default 24 h); while it is in the future the
 *   daily settlement run skips the merchant's live balances (a skip with its reason), as payment
 *   providers hold payouts after an account change against account takeover. Sandbox is not held.
 * - `notifications.kind` also takes `settlement_account_changed`: the email to the merchant's
 *   notification address that names the account changed (masked), when and by whom; its source is the
 *   change's `operator_audit` row.
 *
 * Frozen once landed.
 */
export class Migration20261215000005_merchant_settings_audit extends Migration {
  override name = 'Migration20261215000005_merchant_settings_audit';

  override up(): void {
    this.addSql(`alter table merchants add column settlement_held_until timestamptz null`);
    this.addSql(`alter table notifications drop constraint notifications_kind_check`);
    this.addSql(`alter table notifications add constraint notifications_kind_check
      check (kind in ('charge_receipt','payout_held_for_review','settlement_paid','settlement_failed','dispute_opened','dispute_deadline','settlement_account_changed'))`);
  }
}
