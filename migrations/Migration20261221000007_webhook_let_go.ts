import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 49, the last word before a webhook POST: `webhook_let_go(delivery, attempt, token, hold_ms)`.
 *
 * 1. **One execution sends an attempt.** The chaos run (2026-11-30) saw deliveries answered 2xx and
 *    then sent again with no fault injected: under a saturated worker a second execution of the same
 *    attempt (a heartbeat timeout's retry, or a local first attempt run again by a workflow task that
 *    timed out) read the attempt as not yet recorded while the first was still sending it. The
 *    delivery now carries the send under way (`sending_attempt`, `sending_token`, `sending_until`):
 *    an execution lets its POST go only when no other execution's send of that attempt is under way
 *    (a hold of an earlier attempt does not stand in the way of the next: it was recorded); else not
 *    before `sending_until` (then the attempt is recorded and answered, or the other execution died
 *    and this one sends: at least once, never twice without a fault). An attempt already recorded is
 *    never let go again.
 * 2. **max_per_second held at the instant of the send, not at its plan.** The bench
 *    (docs/benchmarks.md, "Webhook throttle") saw 6–8 sends in the receiver's busiest second at a
 *    limit of 5: `webhook_reserve_send` counted each send in `throttle_recent` at its planned instant,
 *    and a send whose wait timer fired late went out beside the next ones anyway. Now fewer than
 *    max_per_second sends let go in the second before now, on the database's clock with the
 *    endpoint's row locked, is the condition, and the send is counted at now. So no second on the
 *    database's clock holds more than max_per_second sends let go, however late each one comes.
 *
 * Rows are locked delivery first, endpoint second, the order `recordAttempt` takes them in. Answers
 * `go` (with the instant), or not yet: `why` 'recorded' (answer the record), 'in_progress' (another
 * execution's send, until `retry_in_ms`) or 'rate' (the second is full, until `retry_in_ms`).
 *
 * - `webhook_reserve_send` (create or replace): as Migration20261221000006, except that it no longer
 *   adds its planned instant to `throttle_recent` (the send let go counts itself); it still reads
 *   `throttle_recent` so that a plan does not fall in a second already full. And its `later` for a
 *   slot beyond the moment answers a double precision: `extract` answers numeric since PostgreSQL 14,
 *   so that answer failed ("structure of query does not match function result type") and every send
 *   planned more than a second ahead failed its execution and came back on Temporal's retry backoff,
 *   not at its slot, bunched with the others (found by this migration's test, 2026-11-30).
 * - `webhook_attempts.sent_at`: the instant the attempt's POST was let go; null for attempts recorded
 *   before this migration and for those that sent nothing. `attempted_at` stays the workflow's time.
 *
 * Frozen once landed (a change is a new migration with `create or replace`).
 */
export class Migration20261221000007_webhook_let_go extends Migration {
  override name = 'Migration20261221000007_webhook_let_go';

  override up(): void {
    this.addSql(`alter table webhook_attempts add column sent_at timestamptz null`);
    this.addSql(`alter table webhook_deliveries
      add column sending_attempt integer null,
      add column sending_token text null,
      add column sending_until timestamptz null`);
    this.addSql(`create or replace function webhook_let_go(p_delivery text, p_attempt integer, p_token text, p_hold_ms integer)
      returns table (go boolean, sent_at timestamptz, why text, retry_in_ms double precision)
      language plpgsql as $fn$
      declare
        d record;
        e record;
        now_ts timestamptz := clock_timestamp();
        within timestamptz[];
        n integer;
      begin
        select x.endpoint_id, x.sending_attempt, x.sending_token, x.sending_until into d
          from webhook_deliveries x where x.id = p_delivery for no key update;
        if not found then
          return query select false, null::timestamptz, 'recorded'::text, 0::double precision;
          return;
        end if;
        if exists (select 1 from webhook_attempts a where a.delivery_id = p_delivery and a.attempt = p_attempt) then
          return query select false, null::timestamptz, 'recorded'::text, 0::double precision;
          return;
        end if;
        if d.sending_until is not null and d.sending_until > now_ts and d.sending_attempt = p_attempt and d.sending_token <> p_token then
          return query select false, null::timestamptz, 'in_progress'::text, (extract(epoch from d.sending_until - now_ts) * 1000)::double precision;
          return;
        end if;
        select w.max_per_second, w.throttle_recent into e from webhook_endpoints w where w.id = d.endpoint_id;
        if found and e.max_per_second is not null then
          select w.max_per_second, w.throttle_recent into e from webhook_endpoints w where w.id = d.endpoint_id for update;
          select array_agg(t order by t) into within from unnest(e.throttle_recent) as t where t > now_ts - interval '1 second';
          n := coalesce(array_length(within, 1), 0);
          if e.max_per_second is not null and n >= e.max_per_second then
            return query select false, null::timestamptz, 'rate'::text, (extract(epoch from within[n - e.max_per_second + 1] + interval '1 second' - now_ts) * 1000)::double precision;
            return;
          end if;
          update webhook_endpoints set throttle_recent = array_append(coalesce(within, '{}'), now_ts) where id = d.endpoint_id;
        end if;
        update webhook_deliveries set sending_attempt = p_attempt, sending_token = p_token, sending_until = now_ts + make_interval(secs => p_hold_ms / 1000.0)
          where id = p_delivery;
        return query select true, now_ts, null::text, null::double precision;
      end
      $fn$`);
    this.addSql(`create or replace function webhook_reserve_send(
        p_delivery text, p_attempt integer, p_endpoint text, p_timeout_s integer,
        p_recheck_ms integer, p_wait_in_attempt_ms integer, p_come_back_early_ms integer, p_lease_margin_ms integer)
      returns table (permit text, send_at timestamptz, retry_in_ms double precision, held_by text, leased boolean)
      language plpgsql as $fn$
      declare
        e record;
        d record;
        now_ts timestamptz := clock_timestamp();
        slot timestamptz;
        at_ts timestamptz;
        within timestamptz[];
        n integer;
        taken integer;
        mine boolean;
        horizon interval := make_interval(secs => p_wait_in_attempt_ms / 1000.0);
      begin
        select w.max_per_second, w.max_in_flight, w.throttle_next_at, w.throttle_recent into e
          from webhook_endpoints w where w.id = p_endpoint for update;
        if not found then
          return query select 'send'::text, now_ts, null::double precision, null::text, false;
          return;
        end if;
        at_ts := now_ts;
        if e.max_per_second is not null then
          select x.throttle_slot_at, x.throttle_slot_attempt into d from webhook_deliveries x where x.id = p_delivery;
          if found and d.throttle_slot_attempt = p_attempt and d.throttle_slot_at is not null then
            slot := d.throttle_slot_at;
          else
            slot := greatest(coalesce(e.throttle_next_at, now_ts), now_ts);
            update webhook_endpoints set throttle_next_at = slot + make_interval(secs => 1.0 / e.max_per_second) where id = p_endpoint;
            update webhook_deliveries set throttle_slot_at = slot, throttle_slot_attempt = p_attempt where id = p_delivery;
          end if;
          at_ts := greatest(slot, now_ts);
          if at_ts - now_ts > horizon then
            return query select 'later'::text, null::timestamptz, (extract(epoch from at_ts - now_ts) * 1000 - p_come_back_early_ms)::double precision, 'rate'::text, false;
            return;
          end if;
          select array_agg(t order by t) into within from unnest(e.throttle_recent) as t where t > at_ts - interval '1 second';
          n := coalesce(array_length(within, 1), 0);
          if n >= e.max_per_second then
            at_ts := greatest(at_ts, within[n - e.max_per_second + 1] + interval '1 second');
            if at_ts - now_ts > horizon then
              return query select 'later'::text, null::timestamptz, (extract(epoch from at_ts - now_ts) * 1000 - p_come_back_early_ms)::double precision, 'rate'::text, false;
              return;
            end if;
          end if;
        end if;
        if e.max_in_flight is null then
          return query select 'send'::text, at_ts, null::double precision, null::text, false;
          return;
        end if;
        delete from webhook_send_leases l where l.endpoint_id = p_endpoint and l.expires_at <= now_ts;
        select count(*), coalesce(bool_or(l.delivery_id = p_delivery and l.attempt = p_attempt), false) into taken, mine
          from webhook_send_leases l where l.endpoint_id = p_endpoint;
        if not mine and taken >= e.max_in_flight then
          return query select 'later'::text, null::timestamptz, greatest((extract(epoch from at_ts - now_ts) * 1000)::double precision, p_recheck_ms::double precision), 'in_flight'::text, false;
          return;
        end if;
        insert into webhook_send_leases (delivery_id, attempt, endpoint_id, expires_at)
          values (p_delivery, p_attempt, p_endpoint, at_ts + make_interval(secs => p_timeout_s + p_lease_margin_ms / 1000.0))
          on conflict (delivery_id, attempt) do update set expires_at = excluded.expires_at;
        return query select 'send'::text, at_ts, null::double precision, null::text, true;
      end
      $fn$`);
  }
}
