import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 43 ("an in-time SUCCESSFUL for a different amount is not gated"): the status gate
 * (Migration20261215000074_live_reversal_gate, same function otherwise) ends a live payment
 * `succeeded` / `paid` only on a SUCCESSFUL of the partner whose amount and currency are the
 * payment's own (or that does not state them). A SUCCESSFUL for 120.00 GHS on a 150.00 GHS charge
 * credited the merchant 150.00 before; the payment now stays open, flagged, until the partner's
 * record agrees (workflows/partner-answer.ts, patch success-must-match).
 *
 * So that a corrected answer can be recorded beside the one it corrects, `rail_answers` keeps one
 * row per (payment, outcome, source, amount, currency) instead of per (payment, outcome, source)
 * (an expression index: a missing amount or currency counts as one value, on any PostgreSQL version).
 *
 * Frozen once landed.
 */
export class Migration20261215000075_success_amount_gate extends Migration {
  override name = 'Migration20261215000075_success_amount_gate';

  override up(): void {
    this.addSql(`drop index rail_answers_once`);
    this.addSql(`create unique index rail_answers_once on rail_answers (payment_id, outcome, source, (coalesce(amount, -1)), (coalesce(currency, '')))`);
    this.addSql(`create or replace function payment_status_gate() returns trigger language plpgsql as $$
      declare
        kind text := tg_argv[0];
        marker text := coalesce(current_setting('payments.gate', true), '');
      begin
        if marker is distinct from kind || ':' || new.id || ':' || old.status || ':' || new.status then
          raise exception 'payment gate: % % % -> % refused: a status is changed only through the store''s gate (src/persistence/payment-gate.ts)', kind, new.id, old.status, new.status
            using errcode = '23P43';
        end if;
        if new.environment = 'live' and new.status = 'reversed'
           and exists (select 1 from rail_references r where r.payment_id = new.id) then
          raise exception 'payment gate: live % % % -> reversed refused: a live payment that reached the partner is reversed only through the partner (the rail has no refund yet), never in our books alone', kind, new.id, old.status
            using errcode = '23P43';
        end if;
        if new.environment = 'live' and new.status in ('succeeded', 'paid', 'failed', 'expired')
           and exists (select 1 from rail_references r where r.payment_id = new.id) then
          if new.status in ('succeeded', 'paid') then
            if not exists (select 1 from rail_answers a where a.payment_id = new.id and a.outcome = 'succeeded') then
              raise exception 'payment gate: live % % % -> % refused: the partner has not said SUCCESSFUL (no rail_answers row)', kind, new.id, old.status, new.status
                using errcode = '23P43';
            end if;
            if not exists (select 1 from rail_answers a where a.payment_id = new.id and a.outcome = 'succeeded'
                            and (a.amount is null or a.amount = new.amount) and (a.currency is null or a.currency = new.currency)) then
              raise exception 'payment gate: live % % % -> % refused: the partner''s SUCCESSFUL is for another amount or currency than % %; the payment stays % until the partner''s record agrees', kind, new.id, old.status, new.status, new.amount, new.currency, old.status
                using errcode = '23P43';
            end if;
          elsif not exists (select 1 from rail_answers a where a.payment_id = new.id and a.outcome = 'failed')
                and not (exists (select 1 from rail_answers a where a.payment_id = new.id and a.outcome = 'unknown')
                         and not exists (select 1 from rail_answers a where a.payment_id = new.id and a.outcome in ('acknowledged', 'succeeded'))) then
            raise exception 'payment gate: live % % % -> % refused: the partner has not said FAILED (nor unknown before any acknowledgement)', kind, new.id, old.status, new.status
              using errcode = '23P43';
          end if;
        end if;
        return new;
      end $$`);
  }
}
