import { Migration } from '@mikro-orm/migrations';

/**
 * Payouts (issue 10). `payouts` holds one row per payout: written by POST /v1/payouts with its
 * reservation and first event (src/persistence/payouts/payout-create-store.ts), then only by the payout
 * workflow's activities (src/persistence/payouts/payout-store.ts). `metadata_json` keeps the merchant's
 * metadata as the text it was sent in (key order kept), like charges. `sandbox_outcome` is the
 * sandbox switch read once at acceptance (null on live). `workflow_started_at` is set once the
 * payout's workflow is known to exist (the payout-start relay starts the others). The list index
 * serves GET /v1/payouts (newest first, id as tie-break); `reference` is ours and unique.
 * `merchants.payout_review_threshold`: a payout at or above it is held for review. Frozen once landed.
 */
export class Migration20261124000002_payouts extends Migration {
  override name = 'Migration20261124000002_payouts';

  override up(): void {
    this.addSql(`alter table merchants add column payout_review_threshold bigint not null default 5000000 check (payout_review_threshold > 0)`);
    this.addSql(`create table payouts (
      id text primary key,
      merchant_id text not null references merchants(id),
      environment text not null check (environment in ('sandbox','live')),
      status text not null check (status in ('pending','held_for_review','succeeded','failed','reversed')),
      amount bigint not null check (amount > 0),
      currency text not null,
      channel text not null check (channel in ('mobile_money','bank')),
      momo_network_id uuid null,
      bank_code text null,
      recipient_masked text not null,
      recipient_name text not null,
      your_reference text not null,
      reference text not null unique,
      description text null,
      metadata_json text not null,
      fee_platform bigint not null check (fee_platform >= 0),
      fee_tax bigint not null check (fee_tax >= 0),
      total_debit bigint not null check (total_debit = amount + fee_platform + fee_tax),
      failure_class text null,
      sandbox_outcome text null,
      requires_review boolean not null,
      review_decision text null check (review_decision in ('approved','rejected')),
      review_reason text null,
      review_decided_by text null,
      review_decided_at timestamptz null,
      reversed_at timestamptz null,
      workflow_started_at timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((channel = 'mobile_money') = (momo_network_id is not null)),
      check ((channel = 'bank') = (bank_code is not null)))`);
    this.addSql(`create index payouts_scope_created on payouts (merchant_id, environment, created_at desc, id desc)`);
    this.addSql(`create index payouts_workflow_unstarted on payouts (created_at) where workflow_started_at is null`);
  }
}
