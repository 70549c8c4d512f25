import { Migration } from '@mikro-orm/migrations';

/**
 * Routing with failover (issue 46; docs/partner-rail.md, "Routing and failover"). A live payment may
 * try a second partner when its first attempt provably moved no money; each attempt has its own
 * partner reference.
 *
 * - `rail_references` stays one row per payment: the payment's current attempt (`attempt`, from 1),
 *   with what the failover gate reads of it: `sends` (submissions started with this reference, each
 *   counted before it is sent), `unreached` (those that provably never reached the partner: the
 *   connection was never made) and `refused_elsewhere` (the reason of a first submission's refusal
 *   that the partner's error table marks retry-elsewhere).
 * - `rail_attempts`: each attempt a payment left behind, with its partner, reference, why it ended
 *   (`not_reached`, `refused`) and the partner tried next. A callback or a statement line for its
 *   reference still finds its payment.
 * - `charges`, `payouts`, `settlements`: `rail_route`, the partners the payment may use in order
 *   (decided at creation from the routes, the first is its `rail`); null: its one partner, no failover.
 * - `rail_answers` is unique per reference (an attempt's refusal and the next attempt's answers are
 *   rows of their own), and the status gate reads only the answers of the payment's current
 *   reference: a refusal of an attempt left behind never supports failing the payment while the
 *   next attempt is under way.
 *
 * Frozen once landed.
 */
export class Migration20261217000001_rail_attempts extends Migration {
  override name = 'Migration20261217000001_rail_attempts';

  override up(): void {
    this.addSql(`alter table rail_references
      add column attempt integer not null default 1,
      add column sends integer not null default 0 check (sends >= 0),
      add column unreached integer not null default 0 check (unreached >= 0 and unreached <= sends),
      add column refused_elsewhere text null`);
    this.addSql(`create table rail_attempts (
      payment_id text not null,
      attempt integer not null,
      product text not null,
      partner text not null check (partner in ('momo', 'aggregator')),
      reference_id uuid not null unique,
      environment text not null,
      outcome text not null check (outcome in ('not_reached', 'refused')),
      reason text not null,
      sends integer not null,
      next_partner text not null check (next_partner in ('momo', 'aggregator')),
      started_at timestamptz not null,
      ended_at timestamptz not null default now(),
      primary key (payment_id, attempt))`);
    for (const table of ['charges', 'payouts', 'settlements']) {
      this.addSql(`alter table ${table} add column if not exists rail_route text null check (rail_route ~ '^(momo|aggregator)(,(momo|aggregator))*$')`);
    }
    this.addSql(`drop index rail_answers_once`);
    this.addSql(`create unique index rail_answers_once on rail_answers (payment_id, reference_id, outcome, source, (coalesce(amount, -1)), (coalesce(currency, '')))`);
    this.addSql(`create or replace function payment_status_gate() returns trigger language plpgsql as $$
      declare
        kind text := tg_argv[0];
        marker text := coalesce(current_setting('payments.gate', true), '');
        current_ref uuid;
      begin
        if marker is distinct from kind || ':' || new.id || ':' || old.status || ':' || new.status then
          raise exception 'payment gate: % % % -> % refused: a status is changed only through the store''s gate (src/persistence/payment-gate.ts)', kind, new.id, old.status, new.status
            using errcode = '23P43';
        end if;
        select r.reference_id into current_ref from rail_references r where r.payment_id = new.id;
        if new.environment = 'live' and new.status = 'reversed' and current_ref is not null then
          raise exception 'payment gate: live % % % -> reversed refused: a live payment that reached the partner is reversed only through the partner (the rail has no refund yet), never in our books alone', kind, new.id, old.status
            using errcode = '23P43';
        end if;
        if new.environment = 'live' and new.status in ('succeeded', 'paid', 'failed', 'expired') and current_ref is not null then
          if new.status in ('succeeded', 'paid') then
            if not exists (select 1 from rail_answers a where a.payment_id = new.id and a.reference_id = current_ref and a.outcome = 'succeeded') then
              raise exception 'payment gate: live % % % -> % refused: the partner has not said SUCCESSFUL (no rail_answers row)', kind, new.id, old.status, new.status
                using errcode = '23P43';
            end if;
            if not exists (select 1 from rail_answers a where a.payment_id = new.id and a.reference_id = current_ref and a.outcome = 'succeeded'
                            and (a.amount is null or a.amount = new.amount) and (a.currency is null or a.currency = new.currency)) then
              raise exception 'payment gate: live % % % -> % refused: the partner''s SUCCESSFUL is for another amount or currency than % %; the payment stays % until the partner''s record agrees', kind, new.id, old.status, new.status, new.amount, new.currency, old.status
                using errcode = '23P43';
            end if;
          elsif not exists (select 1 from rail_answers a where a.payment_id = new.id and a.reference_id = current_ref and a.outcome = 'failed')
                and not (exists (select 1 from rail_answers a where a.payment_id = new.id and a.reference_id = current_ref and a.outcome = 'unknown')
                         and not exists (select 1 from rail_answers a where a.payment_id = new.id and a.reference_id = current_ref and a.outcome in ('acknowledged', 'succeeded'))) then
            raise exception 'payment gate: live % % % -> % refused: the partner has not said FAILED (nor unknown before any acknowledgement)', kind, new.id, old.status, new.status
              using errcode = '23P43';
          end if;
        end if;
        return new;
      end $$`);
  }
}
