import { Migration } from '@mikro-orm/migrations';

/**
 * `payment_instructions` (issue 45): what the customer must do for a live collection the partner
 * accepted, as the partner said it (the aggregator's bank transfer: the account to pay into, its
 * bank and name, the amount, until when). Written by the rail activities when an answer carries them
 * (src/persistence/partner/payment-instructions-store.ts), the latest kept; read by the hosted
 * checkout page of a live bank charge. A virtual account for one charge, no card data, nothing secret.
 *
 * Frozen once landed.
 */
export class Migration20261216000003_payment_instructions extends Migration {
  override name = 'Migration20261216000003_payment_instructions';

  override up(): void {
    this.addSql(`create table if not exists payment_instructions (
      payment_id text primary key,
      kind text not null check (kind in ('bank_transfer')),
      bank_name text not null,
      account_number text not null,
      account_name text null,
      amount bigint not null check (amount > 0),
      currency text not null,
      expires_at timestamptz not null,
      recorded_at timestamptz not null default now())`);
  }
}
