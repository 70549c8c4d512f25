import { Migration } from '@mikro-orm/migrations';

/**
 * Late money whose amount or currency differ from the payment's (issue 43, Medium: "late money
 * ignores the partner's amount and currency"): a late SUCCESSFUL of 150 NGN for a charge of 150 GHS
 * is recorded (the late_answers row with the partner's amount and currency, its rail_answers row)
 * but nothing is moved for it: no `late_funds` posting, and settle-late refuses every action while
 * they differ (src/persistence/partner/late-answer-store.ts). `held_in_late_funds` says whether the
 * row's money sits in `late_funds` (every row recorded before: true), so `ledger check`
 * (late-answer-checks.ts) expects only those there.
 *
 * Frozen once landed.
 */
export class Migration20261215000041_late_answers_held extends Migration {
  override name = 'Migration20261215000041_late_answers_held';

  override up(): void {
    this.addSql(`alter table late_answers add column held_in_late_funds boolean not null default true`);
  }
}
