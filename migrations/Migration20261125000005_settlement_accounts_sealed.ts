import { Migration } from '@mikro-orm/migrations';

/**
 * Settlement account numbers sealed at rest, like webhook signing secrets (AES-256-GCM under
 * SECRETS_KEY, `v2.<key id>.<iv>.<body>.<tag>`, src/support/secret-box.ts).
 *
 * - `merchants.settlement_account_sealed` / `settlement_account_masked`: the number sealed, and the
 *   only form ever shown (src/domain/settlement-account.ts maskAccountNumber: its last four digits).
 * - `settlements.destination_account_sealed` / `destination_account_masked`: the same, copied from the
 *   merchant by the batch's sweep (the sealed value as it is, never opened there).
 *
 * The migrator has no key, so it cannot seal the numbers already stored: `settlement_account_number`
 * and `destination_account_number` stay, for rows written before this migration only. The code seals
 * them (and clears the plain text) in batches: every worker at start, before it polls; `cli secrets
 * reseal`; and a sweep that meets one (src/services/reseal-secrets.ts sealSettlementAccounts,
 * src/persistence/merchants/sealed-secret-store.ts). Nothing writes a plain number any more. The partial indexes
 * find the rows left to seal without reading the whole table, and are empty once they are sealed.
 *
 * The constraints: a merchant's bank code and number are still set together (the number plain or
 * sealed, never both), the sealed and masked forms together; a batch has exactly one form of its
 * destination number. Every existing row satisfies them (the new columns are null, and the old
 * constraint held), so they are added NOT VALID: no scan of the tables under the lock; they hold for
 * every row written from now on. The index builds read the tables once, so no 20 s statement limit.
 * Frozen once landed.
 */
export class Migration20261125000005_settlement_accounts_sealed extends Migration {
  override name = 'Migration20261125000005_settlement_accounts_sealed';

  override up(): void {
    this.addSql(`set local statement_timeout = 0`);
    this.addSql(`alter table merchants add column settlement_account_sealed text null, add column settlement_account_masked text null`);
    this.addSql(`alter table merchants drop constraint merchants_settlement_account`);
    this.addSql(`alter table merchants add constraint merchants_settlement_account check (
      (settlement_bank_code is null) = (settlement_account_number is null and settlement_account_sealed is null)
      and (settlement_account_sealed is null) = (settlement_account_masked is null)
      and (settlement_account_number is null or settlement_account_sealed is null)) not valid`);
    this.addSql(`create index merchants_settlement_account_plaintext on merchants (id) where settlement_account_number is not null`);

    this.addSql(`alter table settlements alter column destination_account_number drop not null,
      add column destination_account_sealed text null, add column destination_account_masked text null`);
    this.addSql(`alter table settlements add constraint settlements_destination_account check (
      (destination_account_number is null) <> (destination_account_sealed is null)
      and (destination_account_sealed is null) = (destination_account_masked is null)) not valid`);
    this.addSql(`create index settlements_destination_plaintext on settlements (id) where destination_account_number is not null`);
  }
}
