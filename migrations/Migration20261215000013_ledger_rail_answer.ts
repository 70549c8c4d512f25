import { Migration } from '@mikro-orm/migrations';

/**
 * `ledger_entries.rail_answer_id` (issue 43): the postings of a live payment's end carry the partner
 * answer (`rail_answers.id`) the status gate found for it (src/persistence/payment-gate.ts). Null for
 * every other posting, and for postings from before. Nullable and without a default: adding it
 * rewrites nothing.
 *
 * Frozen once landed.
 */
export class Migration20261215000013_ledger_rail_answer extends Migration {
  override name = 'Migration20261215000013_ledger_rail_answer';

  override up(): void {
    this.addSql(`alter table ledger_entries add column if not exists rail_answer_id bigint null`);
  }
}
