import { Migration } from '@mikro-orm/migrations';

/**
 * Live money on a partner rail (issue 20):
 *
 * - `rail_references`: the partner reference (`X-Reference-Id`, a UUID) of each payment sent to the
 *   rail, chosen once and kept, so every retry sends the same request; looked up by the partner's
 *   callbacks (reference → payment) and unique per product.
 * - merchants' live limits (`merchants set --live-max-amount N --live-daily-limit N`; null: none).
 * - `live_daily_usage`: per merchant, UTC day and kind (charge, payout), the live amounts created that
 *   day; the create's transaction adds to it with a guarded upsert, so concurrent creates never pass
 *   the daily limit together.
 * - `payment_parties`: the full customer (charge) or recipient (payout) identifier, sealed with
 *   SECRETS_KEY like settlement account numbers, written by the create's transaction: the rail needs
 *   the number (request-to-pay, transfer) and the receipt needs where to send it; the payment rows
 *   keep only the masked form.
 *
 * Frozen once landed.
 */
export class Migration20261128000003_live_rail extends Migration {
  override name = 'Migration20261128000003_live_rail';

  override up(): void {
    this.addSql(`create table rail_references (
      payment_id text primary key,
      product text not null check (product in ('collection', 'disbursement')),
      reference_id uuid not null,
      environment text not null check (environment in ('sandbox','live')),
      created_at timestamptz not null default now(),
      constraint rail_references_reference unique (product, reference_id))`);
    this.addSql(`alter table merchants add column live_max_amount bigint null check (live_max_amount > 0),
      add column live_daily_limit bigint null check (live_daily_limit > 0)`);
    this.addSql(`create table live_daily_usage (
      merchant_id text not null references merchants(id),
      day date not null,
      kind text not null check (kind in ('charge', 'payout')),
      amount bigint not null check (amount >= 0),
      primary key (merchant_id, day, kind))`);
    this.addSql(`create table payment_parties (
      payment_id text primary key,
      party_sealed text not null,
      created_at timestamptz not null default now())`);
  }
}
