import { Migration } from '@mikro-orm/migrations';

/**
 * Live limits per currency (issue 29). Before, one `live_max_amount` and one `live_daily_limit` per
 * merchant were compared with amounts of any currency, and `live_daily_usage` added minor units of
 * every currency into one number (60,000 pesewas and 60,000 shillings made 120,000 of nothing).
 *
 * - `live_limits`: per merchant and currency, the per-transaction maximum and the daily limit (minor
 *   units of that currency; null: none), set by `merchants set --live-max-amount CUR:N
 *   --live-daily-limit CUR:N`.
 * - A limit set before this migration had no currency. It becomes that limit in every currency of the
 *   reference list, which keeps what it did per transaction (the number was compared with any
 *   currency's amount) and no longer adds currencies together for the day. Operators review them
 *   (`merchants set` answers them; the portal's Settings page lists them).
 * - `live_daily_usage` gains `currency`, in its key. Its rows cannot be split by currency, so they are
 *   counted again from the live charges and payouts created on their days: the usage counts what
 *   was created (a create refused by a limit rolled back and left no row), exactly what the guarded
 *   upsert added.
 * - `merchants.live_max_amount` and `live_daily_limit` are no longer read; they stay, unchanged, so
 *   that the code before this migration still runs during a rolling deploy.
 *
 * Frozen once landed.
 */
export class Migration20261203000001_live_limits_per_currency extends Migration {
  override name = 'Migration20261203000001_live_limits_per_currency';

  override up(): void {
    this.addSql(`create table live_limits (
      merchant_id text not null references merchants(id),
      currency text not null references currencies(code),
      max_amount bigint null check (max_amount > 0),
      daily_limit bigint null check (daily_limit > 0),
      updated_at timestamptz not null default now(),
      primary key (merchant_id, currency))`);
    this.addSql(`insert into live_limits (merchant_id, currency, max_amount, daily_limit)
      select m.id, c.code, m.live_max_amount, m.live_daily_limit
      from merchants m cross join currencies c
      where m.live_max_amount is not null or m.live_daily_limit is not null`);
    this.addSql(`create table live_daily_usage_recount as
      select u.merchant_id, u.day, u.kind, p.currency, sum(p.amount)::bigint as amount
      from live_daily_usage u
      join (
        select 'charge' as kind, merchant_id, currency, amount, (created_at at time zone 'utc')::date as day from charges where environment = 'live'
        union all
        select 'payout' as kind, merchant_id, currency, amount, (created_at at time zone 'utc')::date as day from payouts where environment = 'live'
      ) p on p.merchant_id = u.merchant_id and p.day = u.day and p.kind = u.kind
      group by u.merchant_id, u.day, u.kind, p.currency`);
    this.addSql(`delete from live_daily_usage`);
    this.addSql(`alter table live_daily_usage add column currency text not null`);
    this.addSql(`alter table live_daily_usage drop constraint live_daily_usage_pkey`);
    this.addSql(`alter table live_daily_usage add primary key (merchant_id, day, kind, currency)`);
    this.addSql(`insert into live_daily_usage (merchant_id, day, kind, currency, amount) select merchant_id, day, kind, currency, amount from live_daily_usage_recount`);
    this.addSql(`drop table live_daily_usage_recount`);
  }
}
