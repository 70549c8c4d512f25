import { Migration } from '@mikro-orm/migrations';

/**
 * The operators' audit log (src/domain/operator-action.ts): one row per operator action taken by a
 * workflow (resolve, reverse, approve, reject, retry a step, retry a settlement, restart), whoever
 * sent it. `(payment_id, request_id)` is unique: the activity that writes a row is retried until it
 * succeeds, and a retry writes nothing twice. `batch_id` ties the rows of one bulk run together.
 * Rows are never updated or deleted by the application. Frozen once landed.
 */
export class Migration20261126000001_operator_audit extends Migration {
  override name = 'Migration20261126000001_operator_audit';

  override up(): void {
    this.addSql(`create table operator_audit (
      id text primary key,
      payment_id text not null,
      action text not null,
      operator text not null check (length(operator) between 1 and 100),
      reason text not null check (length(reason) between 1 and 500),
      state_before jsonb null,
      state_after jsonb null,
      request_id text not null,
      batch_id text null,
      merchant_id text null,
      environment text null,
      created_at timestamptz not null default now(),
      constraint operator_audit_request unique (payment_id, request_id)
    )`);
    this.addSql(`create index operator_audit_created on operator_audit (created_at, id)`);
    this.addSql(`create index operator_audit_payment on operator_audit (payment_id, created_at)`);
    this.addSql(`create index operator_audit_batch on operator_audit (batch_id) where batch_id is not null`);
  }
}
