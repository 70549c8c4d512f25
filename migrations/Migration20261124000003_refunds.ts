import { Migration } from '@mikro-orm/migrations';

/**
 * Refunds (issue 10). `refunds` holds one row per refund: written by POST /v1/refunds with its
 * reservation and `refund.created` (src/persistence/refunds/refund-create-store.ts), then only by the refund
 * workflow's activities (src/persistence/refunds/refund-store.ts). `metadata_json` keeps the merchant's
 * metadata as the text it was sent in (key order kept), like charges and payouts; `sandbox_outcome`
 * is the sandbox switch read once at acceptance (null on live). `workflow_started_at` is set once the
 * refund's workflow is known to exist (the refund-start relay starts the others).
 *
 * `charges.amount_refunded`: the sum of the charge's succeeded refunds, moved in the transaction that
 * makes a refund succeed. What is still refundable (charge amount minus pending and succeeded
 * refunds) is summed from `refunds` under the charge's row lock (index refunds_charge). Frozen once landed.
 */
export class Migration20261124000003_refunds extends Migration {
  override name = 'Migration20261124000003_refunds';

  override up(): void {
    // A constant default is a catalog change only; the check is NOT VALID (existing rows hold 0, so no
    // scan of charges is needed) and binds every row written from now on.
    this.addSql(`alter table charges add column amount_refunded bigint not null default 0`);
    this.addSql(`alter table charges add constraint charges_amount_refunded check (amount_refunded >= 0 and amount_refunded <= amount) not valid`);
    this.addSql(`create table refunds (
      id text primary key,
      merchant_id text not null references merchants(id),
      environment text not null check (environment in ('sandbox','live')),
      charge_id text not null references charges(id),
      status text not null check (status in ('pending','succeeded','failed')),
      amount bigint not null check (amount > 0),
      currency text not null,
      reason text null check (reason in ('duplicate','fraudulent','requested_by_customer')),
      metadata_json text not null,
      failure_class text null,
      sandbox_outcome text null,
      workflow_started_at timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((status = 'failed') = (failure_class is not null)))`);
    this.addSql(`create index refunds_scope_created on refunds (merchant_id, environment, created_at desc, id desc)`);
    this.addSql(`create index refunds_charge on refunds (charge_id, status)`);
    this.addSql(`create index refunds_workflow_unstarted on refunds (created_at) where workflow_started_at is null`);
  }
}
