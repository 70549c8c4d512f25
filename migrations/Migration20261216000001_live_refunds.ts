import { Migration } from '@mikro-orm/migrations';

/**
 * Live refunds on the partner rail (issue 45). A refund is a partner resource of its own (MoMo's
 * `POST /disbursement/v1_0/refund`, src/rail/partner-rail.ts RailResource `refund`), so:
 *
 * - `rail_references.product`, `rail_answers.product` and `late_answers.product` take `refund` beside
 *   `collection` and `disbursement` (a refund's reference is chosen once, kept, and its answers
 *   recorded as a payout's), and `late_answers.kind` takes `refund`: a refund the partner paid after
 *   it said FAILED is late money, reviewed and settled (`accept`) as a payout's;
 * - refunds pass the status gate (Migration20261215000075_success_amount_gate's function, unchanged):
 *   a refund's status changes only through the store's gate (src/persistence/payment-gate.ts, kind
 *   `refund`), and a live refund that reached the partner ends succeeded only on its SUCCESSFUL for
 *   the refund's amount and currency, failed only on its FAILED (or `unknown` before any
 *   acknowledgement).
 *
 * The check constraints were written inline (`<table>_product_check`); they are replaced, not
 * widened in place. Nothing is rewritten: every row already holds one of the old values.
 *
 * Frozen once landed.
 */
export class Migration20261216000001_live_refunds extends Migration {
  override name = 'Migration20261216000001_live_refunds';

  override up(): void {
    for (const table of ['rail_references', 'rail_answers', 'late_answers']) {
      this.addSql(`alter table ${table} drop constraint if exists ${table}_product_check`);
      this.addSql(`alter table ${table} add constraint ${table}_product_check check (product in ('collection', 'disbursement', 'refund'))`);
    }
    this.addSql(`alter table late_answers drop constraint if exists late_answers_kind_check`);
    this.addSql(`alter table late_answers add constraint late_answers_kind_check check (kind in ('charge', 'payout', 'settlement', 'refund'))`);
    this.addSql(
      `create trigger refunds_status_gate before update of status on refunds for each row when (old.status is distinct from new.status) execute function payment_status_gate('refund')`,
    );
  }
}
