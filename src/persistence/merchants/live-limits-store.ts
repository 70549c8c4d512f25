import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors';
import type { CurrencyAmounts } from '../../domain/live-limits';
import { TEXT_ARRAY } from '../sql-values';

export type LimitedKind = 'charge' | 'payout';

/**
 * The merchant's live limits, per currency (`merchants set --live-max-amount CUR:N --live-daily-limit
 * CUR:N`, table `live_limits`; src/domain/live-limits.ts), applied in a live create's transaction,
 * before anything of the payment is written, with the limits of the payment's currency (none set for
 * it: no limit):
 *
 * - per transaction: an amount above the currency's `max_amount` is 422 `amount_limit_exceeded`
 *   (param `amount`, naming the limit and the currency);
 * - per UTC day, kind and currency (charges and payouts each against the daily limit): the amount is
 *   added to `live_daily_usage` by one guarded upsert that refuses when the day's sum in that
 *   currency would pass its `daily_limit`. The upsert locks the day's row until commit, so concurrent
 *   creates add one after the other against the sum the previous ones left: fifty at once never pass
 *   the limit together. A create that rolls back (any later refusal) takes its amount back with it.
 *   Amounts of different currencies are never added together.
 *
 * The day's usage counts what was created, whatever became of it (a failed or expired charge still
 * counts): a limit on attempted volume, as card velocity limits are, so failures cannot be used to
 * probe past it. Usage is kept whether or not a limit is set, so a limit set during the day applies to
 * what was already created that day.
 */
export async function applyLiveLimits(em: EntityManager, merchantId: string, kind: LimitedKind, amount: number, currency: string): Promise<void> {
  const rows = await em.execute<Array<{ max: string | null; daily: string | null }>>(
    `select max_amount::text as max, daily_limit::text as daily from live_limits where merchant_id = ? and currency = ?`,
    [merchantId, currency],
  );
  const max = rows[0]?.max == null ? null : Number(rows[0].max);
  const daily = rows[0]?.daily == null ? null : Number(rows[0].daily);
  if (max !== null && amount > max) {
    throw new ApiError('amount_limit_exceeded', `The amount ${amount} ${currency} is above this account's live limit per transaction in ${currency} (live_max_amount ${currency}:${max}). Nothing was created.`, { param: 'amount' });
  }
  const added = await em.execute<Array<{ amount: string }>>(
    `insert into live_daily_usage (merchant_id, day, kind, currency, amount)
     select ?, (now() at time zone 'utc')::date, ?, ?, ? where ?::bigint is null or ? <= ?::bigint
     on conflict (merchant_id, day, kind, currency) do update set amount = live_daily_usage.amount + excluded.amount
       where ?::bigint is null or live_daily_usage.amount + excluded.amount <= ?::bigint
     returning amount::text as amount`,
    [merchantId, kind, currency, amount, daily, amount, daily, daily, daily],
  );
  if (added.length === 0) {
    throw new ApiError(
      'amount_limit_exceeded',
      `This ${kind} would take today's live ${kind}s in ${currency} (UTC) past this account's live daily limit in ${currency} (live_daily_limit ${currency}:${daily}). Nothing was created.`,
      { param: 'amount' },
    );
  }
}

/** Today's (UTC) live usage of one currency, per kind, in its minor units (exact decimal text; "0" when none). */
export type UsageToday = Record<LimitedKind, string>;

/** What today's (UTC) live creates used of the daily limits, by currency (only currencies used today), then kind. */
export async function liveDailyUsageToday(em: EntityManager, merchantId: string): Promise<Record<string, UsageToday>> {
  const rows = await em.execute<Array<{ kind: LimitedKind; currency: string; amount: string }>>(
    `select kind, currency, amount::text as amount from live_daily_usage where merchant_id = ? and day = (now() at time zone 'utc')::date order by currency`,
    [merchantId],
  );
  const usage: Record<string, UsageToday> = {};
  for (const row of rows) (usage[row.currency] ??= { charge: '0', payout: '0' })[row.kind] = row.amount;
  return usage;
}

/** The merchant's live limits as stored: per-transaction maxima and daily limits, each by currency (only those set). */
export interface LiveLimits {
  maxAmount: CurrencyAmounts;
  dailyLimit: CurrencyAmounts;
}

export async function readLiveLimits(em: EntityManager, merchantId: string): Promise<LiveLimits> {
  const rows = await em.execute<Array<{ currency: string; max: string | null; daily: string | null }>>(
    `select currency, max_amount::text as max, daily_limit::text as daily from live_limits where merchant_id = ? order by currency`,
    [merchantId],
  );
  const limits: LiveLimits = { maxAmount: {}, dailyLimit: {} };
  for (const row of rows) {
    if (row.max !== null) limits.maxAmount[row.currency] = Number(row.max);
    if (row.daily !== null) limits.dailyLimit[row.currency] = Number(row.daily);
  }
  return limits;
}

/**
 * Sets the named currencies' limits (the others, and the other limit of a named currency, are kept),
 * inside the caller's transaction. Throws for a currency that is not in the reference list.
 */
export async function writeLiveLimits(em: EntityManager, merchantId: string, change: Partial<LiveLimits>): Promise<void> {
  const currencies = [...new Set([...Object.keys(change.maxAmount ?? {}), ...Object.keys(change.dailyLimit ?? {})])].sort();
  if (currencies.length === 0) return;
  const known = await em.execute<Array<{ code: string }>>(`select code from currencies where code = any(${TEXT_ARRAY})`, [JSON.stringify(currencies)]);
  const unknown = currencies.filter((c) => !known.some((k) => k.code === c));
  if (unknown.length > 0) throw new Error(`unknown currency ${unknown.map((c) => `"${c}"`).join(', ')}; the codes are those of the currencies reference list (GET /v1/reference/currencies)`);
  for (const currency of currencies) {
    await em.execute(
      `insert into live_limits (merchant_id, currency, max_amount, daily_limit, updated_at) values (?, ?, ?, ?, now())
       on conflict (merchant_id, currency) do update set max_amount = coalesce(excluded.max_amount, live_limits.max_amount),
         daily_limit = coalesce(excluded.daily_limit, live_limits.daily_limit), updated_at = now()`,
      [merchantId, currency, change.maxAmount?.[currency] ?? null, change.dailyLimit?.[currency] ?? null],
    );
  }
}
