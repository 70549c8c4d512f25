import { Migration } from '@mikro-orm/migrations';

/**
 * A live card charge's card as the API shows it (issue 45): `charges.card_brand` and
 * `charges.card_last4`, written by the hosted page's claim in the same transaction as its
 * `card_submissions` row (src/persistence/charges/card-submission-store.ts), so the charge object and
 * its events say which card paid (`card: {brand, last4}`). Nothing else of the card. Null for every
 * other charge. Not a status change: the status gate's trigger does not fire.
 *
 * Frozen once landed.
 */
export class Migration20261216000006_charge_card extends Migration {
  override name = 'Migration20261216000006_charge_card';

  override up(): void {
    this.addSql(`alter table charges add column if not exists card_brand text null`);
    this.addSql(`alter table charges add column if not exists card_last4 text null check (card_last4 ~ '^[0-9]{4}$')`);
  }
}
