import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 43 (Low: a raw update's audit identity is whatever the sender claims): `operator_audit.temporal_identity`,
 * the identity Temporal recorded for the update that made the action (its `WorkflowExecutionUpdateAccepted`
 * event: the sending client's identity, e.g. `12345@ops-host` for the CLI or the UI's), beside the
 * operator the request names. Filled by the worker once the update's acceptance is in the run's
 * history (src/runtime/audit-identity.ts); null for an action no update made (a started run, a CLI
 * change of settings) and for rows written before. Frozen once landed.
 */
export class Migration20261215000073_operator_audit_identity extends Migration {
  override name = 'Migration20261215000073_operator_audit_identity';

  override up(): void {
    this.addSql(`alter table operator_audit add column temporal_identity text null`);
  }
}
