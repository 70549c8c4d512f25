import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../domain/errors';

export type LimitedKind = 'charge' | 'payout';

/**
 * The merchant's live limits (`merchants set --live-max-amount N --live-daily-limit N`), applied in a
 * live create's transaction, before anything of the payment is written:
 *
 * - per transaction: an amount above `live_max_amount` is 422 `amount_limit_exceeded` (param
 *   `amount`, naming the limit);
 * - per UTC day and kind (charges and payouts each against the daily limit): the amount is added to
 *   `live_daily_usage` by one guarded upsert that refuses when the day's sum would pass
 *   `live_daily_limit`. The upsert locks the day's row until commit, so concurrent creates add one
 *   after the other against the sum the previous ones left: fifty at once never pass the limit
 *   together. A create that rolls back (any later refusal) takes its amount back with it.
 *
 * The day's usage counts what was created, whatever became of it (a failed or expired charge still
 * counts): a limit on attempted volume, as card velocity limits are, so failures cannot be used to
 * probe past it. Usage is kept whether or not a limit is set, so a limit set during the day applies to
 * what was already created that day.
 */
export async function applyLiveLimits(em: EntityManager, merchantId: string, kind: LimitedKind, amount: number): Promise<void> {
  const rows = await em.execute<Array<{ max: string | null; daily: string | null }>>(
    `select live_max_amount::text as max, live_daily_limit::text as daily from merchants where id = ?`,
    [merchantId],
  );
  const max = rows[0]?.max == null ? null : Number(rows[0].max);
  const daily = rows[0]?.daily == null ? null : Number(rows[0].daily);
  if (max !== null && amount > max) {
    throw new ApiError('amount_limit_exceeded', `The amount ${amount} is above this account's live limit per transaction (live_max_amount ${max}). Nothing was created.`, { param: 'amount' });
  }
  const added = await em.execute<Array<{ amount: string }>>(
    `insert into live_daily_usage (merchant_id, day, kind, amount)
     select ?, (now() at time zone 'utc')::date, ?, ? where ?::bigint is null or ? <= ?::bigint
     on conflict (merchant_id, day, kind) do update set amount = live_daily_usage.amount + excluded.amount
       where ?::bigint is null or live_daily_usage.amount + excluded.amount <= ?::bigint
     returning amount::text as amount`,
    [merchantId, kind, amount, daily, amount, daily, daily, daily],
  );
  if (added.length === 0) {
    throw new ApiError(
      'amount_limit_exceeded',
      `This ${kind} would take today's live ${kind}s (UTC) past this account's live daily limit (live_daily_limit ${daily}). Nothing was created.`,
      { param: 'amount' },
    );
  }
}

/** What today's (UTC) live creates used of the daily limit, per kind, in minor units (exact decimal text; "0" when none). */
export async function liveDailyUsageToday(em: EntityManager, merchantId: string): Promise<Record<LimitedKind, string>> {
  const rows = await em.execute<Array<{ kind: LimitedKind; amount: string }>>(
    `select kind, amount::text as amount from live_daily_usage where merchant_id = ? and day = (now() at time zone 'utc')::date`,
    [merchantId],
  );
  return { charge: rows.find((r) => r.kind === 'charge')?.amount ?? '0', payout: rows.find((r) => r.kind === 'payout')?.amount ?? '0' };
}
