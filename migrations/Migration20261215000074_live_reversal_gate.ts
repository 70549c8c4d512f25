import { Migration } from '@mikro-orm/migrations';

/**
 * The status gate (Migration20261215000012_payment_status_gate) also refuses a live payment that may
 * have reached the partner (a `rail_references` row) moving to `reversed` (issue 43, "live
 * `charges reverse` and `payouts reverse` change only the ledger, with no partner evidence"). The API
 * and the CLI refuse live reversals already; a reversal workflow started by hand on Temporal (a
 * charge's `chargeReversalWorkflow`) went through the store's gate, which had no rule for it. The
 * rail has no refund call yet: until it has (the live-every-channel issue), no partner answer can
 * support a live reversal. The function is the same as before with that rule after the marker's.
 *
 * Frozen once landed.
 */
export class Migration20261215000074_live_reversal_gate extends Migration {
  override name = 'Migration20261215000074_live_reversal_gate';

  override up(): void {
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
