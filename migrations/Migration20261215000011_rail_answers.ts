import { Migration } from '@mikro-orm/migrations';

/**
 * `rail_answers` (issue 43, the gate): one row per partner answer that can end a live payment. The
 * rail activities write them (activities/rail.ts: a status's final SUCCESSFUL or FAILED, its
 * `unknown`, the first PENDING or accepted submission as `acknowledged`, a first submission's
 * refusal), and so does late money (late-answer-store.ts). The status gate
 * (Migration20261215000012_payment_status_gate) ends a live payment that reached the partner only
 * when a row here supports the end. One row per (payment, outcome, source): a poll that repeats
 * what is known writes nothing. The late SUCCESSFULs already recorded (late_answers) are copied in.
 *
 * Frozen once landed.
 */
export class Migration20261215000011_rail_answers extends Migration {
  override name = 'Migration20261215000011_rail_answers';

  override up(): void {
    this.addSql(`create table rail_answers (
      id bigserial primary key,
      payment_id text not null,
      product text not null check (product in ('collection', 'disbursement')),
      reference_id uuid not null,
      source text not null check (source in ('status', 'submit_refusal', 'callback', 'statement', 'operator_evidence')),
      outcome text not null check (outcome in ('succeeded', 'failed', 'unknown', 'acknowledged')),
      partner_status text not null,
      amount bigint null,
      currency text null,
      partner_transaction_id text null,
      reason text null,
      recorded_at timestamptz not null default now())`);
    this.addSql(`create unique index rail_answers_once on rail_answers (payment_id, outcome, source)`);
    // Late money recorded before: its SUCCESSFUL is the partner's word an operator's settle-late needs.
    this.addSql(`insert into rail_answers (payment_id, product, reference_id, source, outcome, partner_status, amount, currency, partner_transaction_id, recorded_at)
      select l.payment_id, r.product, r.reference_id, 'status', 'succeeded', 'SUCCESSFUL', l.partner_amount, l.partner_currency, l.financial_transaction_id, l.recorded_at
      from late_answers l join rail_references r on r.payment_id = l.payment_id
      on conflict do nothing`);
  }
}
