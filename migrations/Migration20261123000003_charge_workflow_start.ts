import { Migration } from '@mikro-orm/migrations';

/**
 * `charges.workflow_started_at`: set once the charge's workflow is known to exist. The API writes a
 * charge first and starts its workflow second (docs/architecture.md, "Create path"); the workflow's
 * first step (beginCharge) sets this column, and the charge-start relay in the worker process starts
 * any non-terminal charge still without it after a few seconds (a start that failed, timed out, or
 * was cut short by a crash). Rows from before this migration were written by their workflow itself
 * (update-with-start), so they are backfilled with created_at. Frozen once landed.
 */
export class Migration20261123000003_charge_workflow_start extends Migration {
  override name = 'Migration20261123000003_charge_workflow_start';

  override up(): void {
    // The backfill touches every charge: no 20 s statement limit for this migration.
    this.addSql(`set local statement_timeout = 0`);
    this.addSql(`alter table charges add column workflow_started_at timestamptz null`);
    this.addSql(`update charges set workflow_started_at = created_at`);
    this.addSql(`create index charges_workflow_unstarted on charges (created_at) where workflow_started_at is null`);
  }
}
