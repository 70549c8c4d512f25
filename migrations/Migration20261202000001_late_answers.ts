import { Migration } from '@mikro-orm/migrations';

/**
 * Late money (issue 29): one row per payment the partner answered SUCCESSFUL after we had ended it
 * (a charge expired or failed; a payout or settlement failed). Written with its ledger posting into
 * `late_funds` and its event, in one transaction (src/persistence/partner/late-answer-store.ts); settled once
 * by an operator (`settled_action`: credit, return or accept). A `return` keeps its own partner
 * reference for the transfer back to the payer.
 *
 * Frozen once landed.
 */
export class Migration20261202000001_late_answers extends Migration {
  override name = 'Migration20261202000001_late_answers';

  override up(): void {
    this.addSql(`create table if not exists late_answers (
      payment_id text primary key,
      kind text not null check (kind in ('charge', 'payout', 'settlement')),
      product text not null check (product in ('collection', 'disbursement')),
      merchant_id text not null,
      environment text not null,
      partner_status text not null,
      financial_transaction_id text null,
      amount bigint not null,
      currency text not null,
      partner_amount bigint null,
      partner_currency text null,
      our_status text not null,
      recorded_at timestamptz not null,
      settled_action text null check (settled_action in ('credit', 'return', 'accept')),
      settled_by text null,
      settled_at timestamptz null,
      return_reference_id uuid null,
      return_status text null check (return_status in ('requested', 'submitted', 'succeeded', 'failed')),
      check ((settled_action is null) = (settled_at is null)))`);
    this.addSql(`create index if not exists late_answers_open on late_answers (recorded_at) where settled_action is null`);
  }
}
