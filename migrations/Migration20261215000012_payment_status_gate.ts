import { Migration } from '@mikro-orm/migrations';

/**
 * The status gate in the database (issue 43; src/persistence/payment-gate.ts, docs/partner-rail.md
 * "The status gate"). A change of `status` on charges, payouts and settlements is refused, SQLSTATE
 * 23P43, unless:
 *
 * (a) the transaction set the gate's marker for exactly this change:
 *     `set_config('payments.gate', '<kind>:<id>:<old status>:<new status>', true)` (the store's gate
 *     does, right before its update): code that writes a status around the store fails;
 * (b) for a live payment with a `rail_references` row (it may have reached the partner), an end is
 *     supported by the partner's word in `rail_answers`: succeeded / paid by an answer `succeeded`;
 *     failed / expired by an answer `failed`, or `unknown` with no `acknowledged` or `succeeded`
 *     answer for the payment. A live payment never sent (no reference) and the sandbox are held to (a) only.
 *
 * Frozen once landed.
 */
export class Migration20261215000012_payment_status_gate extends Migration {
  override name = 'Migration20261215000012_payment_status_gate';

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
    for (const [table, kind] of [
      ['charges', 'charge'],
      ['payouts', 'payout'],
      ['settlements', 'settlement'],
    ] as const) {
      this.addSql(
        `create trigger ${table}_status_gate before update of status on ${table} for each row when (old.status is distinct from new.status) execute function payment_status_gate('${kind}')`,
      );
    }
  }
}
