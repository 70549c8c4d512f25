import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 49, the per-endpoint throttle in one round trip: `webhook_reserve_send` is the decision
 * src/persistence/webhooks/webhook-throttle-store.ts `reserveSend` took in a transaction of four to
 * six statements, each a round trip on the environment's webhook database lane while the endpoint's
 * row was locked. The bench (docs/benchmarks.md, "Webhook throttle") found sends leaving later than
 * the instant their reservation counted (up to 7 in one second at max_per_second 5), and a quiet
 * merchant's deliveries slowed beside a throttled backlog. As one function call the row is locked for
 * one statement, and the answer is the instant the send may leave (`send_at`, the database's clock),
 * not a wait measured from before the round trips.
 *
 * - `max_per_second`: the attempt keeps the slot it reserved before (same delivery and attempt), else
 *   takes the endpoint's next free slot (`throttle_next_at`, moved on by 1 / max_per_second). A send
 *   also waits until the second before it holds fewer than max_per_second sends (`throttle_recent`).
 *   Further away than `p_wait_in_attempt_ms`: `later`, `p_come_back_early_ms` before it (the slot
 *   stays reserved).
 * - `max_in_flight`: leases of sends under way (expired ones dropped first); all places taken is
 *   `later` after at least `p_recheck_ms`; else a lease until the send's timeout plus
 *   `p_lease_margin_ms` after `send_at`.
 *
 * Frozen once landed (a change is a new migration with `create or replace`).
 */
export class Migration20261221000006_webhook_reserve_send extends Migration {
  override name = 'Migration20261221000006_webhook_reserve_send';

  override up(): void {
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
            return query select 'later'::text, null::timestamptz, extract(epoch from at_ts - now_ts) * 1000 - p_come_back_early_ms, 'rate'::text, false;
            return;
          end if;
          select array_agg(t order by t) into within from unnest(e.throttle_recent) as t where t > at_ts - interval '1 second';
          n := coalesce(array_length(within, 1), 0);
          if n >= e.max_per_second then
            at_ts := greatest(at_ts, within[n - e.max_per_second + 1] + interval '1 second');
            if at_ts - now_ts > horizon then
              return query select 'later'::text, null::timestamptz, extract(epoch from at_ts - now_ts) * 1000 - p_come_back_early_ms, 'rate'::text, false;
              return;
            end if;
          end if;
          update webhook_endpoints set throttle_recent = (
              select coalesce(array_agg(r.t order by r.t), '{}') from (select unnest(e.throttle_recent) as t union all select at_ts) r
              where r.t > at_ts - interval '1 second')
            where id = p_endpoint;
        end if;
        if e.max_in_flight is null then
          return query select 'send'::text, at_ts, null::double precision, null::text, false;
          return;
        end if;
        delete from webhook_send_leases l where l.endpoint_id = p_endpoint and l.expires_at <= now_ts;
        select count(*), coalesce(bool_or(l.delivery_id = p_delivery and l.attempt = p_attempt), false) into taken, mine
          from webhook_send_leases l where l.endpoint_id = p_endpoint;
        if not mine and taken >= e.max_in_flight then
          return query select 'later'::text, null::timestamptz, greatest(extract(epoch from at_ts - now_ts) * 1000, p_recheck_ms::double precision), 'in_flight'::text, false;
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
