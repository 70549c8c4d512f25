import { Migration } from '@mikro-orm/migrations';

/**
 * Disputes (issue 11). `disputes` holds one row per dispute: written by POST
 * /v1/sandbox/charges/{id}/disputes with its hold and `dispute.opened`
 * (src/persistence/disputes/dispute-create-store.ts), then only by the dispute workflow's activities
 * (src/persistence/disputes/dispute-store.ts): `evidence_due_by` with `dispute.evidence_required`, the
 * evidence (`under_review`), the end (`won` | `lost`). `workflow_started_at` is set once the
 * dispute's workflow is known to exist (the dispute-start relay starts the others).
 *
 * At most one open dispute (`needs_response` or `under_review`) per charge: the create checks it
 * under the charge's row lock, and the unique partial index disputes_one_open_per_charge holds it
 * whatever the code does. What is still disputable, and still refundable, is summed from `refunds`
 * and `disputes` under the charge's row lock (indexes refunds_charge, disputes_charge). Frozen once landed.
 */
export class Migration20261125000002_disputes extends Migration {
  override name = 'Migration20261125000002_disputes';

  override up(): void {
    this.addSql(`create table disputes (
      id text primary key,
      merchant_id text not null references merchants(id),
      environment text not null check (environment in ('sandbox','live')),
      charge_id text not null references charges(id),
      status text not null check (status in ('needs_response','under_review','won','lost')),
      amount bigint not null check (amount > 0),
      currency text not null,
      reason text not null check (reason in ('fraudulent','product_not_received','product_unacceptable','duplicate','credit_not_processed','general')),
      evidence_text text null check (char_length(evidence_text) between 1 and 10000),
      evidence_submitted_at timestamptz null,
      evidence_due_by timestamptz null,
      workflow_started_at timestamptz null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check ((evidence_text is null) = (evidence_submitted_at is null)),
      check (status <> 'under_review' or evidence_text is not null))`);
    this.addSql(`create unique index disputes_one_open_per_charge on disputes (charge_id) where status in ('needs_response','under_review')`);
    this.addSql(`create index disputes_scope_created on disputes (merchant_id, environment, created_at desc, id desc)`);
    this.addSql(`create index disputes_charge on disputes (charge_id, status)`);
    this.addSql(`create index disputes_workflow_unstarted on disputes (created_at) where workflow_started_at is null`);
  }
}
