import { Migration } from '@mikro-orm/migrations';

/**
 * The partner callbacks' signal claims (issue 30, src/persistence/partner/callback-signal-store.ts): one row
 * per workflow that a verified callback has signalled, keyed by its id in `payment_id` (the payment's
 * own id for its wake-up, `review-<paymentId>` for a late callback's review flag), with when it last
 * signalled it (`last_signal_at`) and how many times in its life (`signals`). The callback route takes a claim with one conditional
 * upsert before it signals, so every API process sees the same debounce window and the same cap: a
 * replayed callback URL cannot grow a payment's workflow history (or start review after review).
 *
 * Logged (not UNLOGGED): the count is the cap over the payment's life; losing it in a crash would
 * give a leaked URL a fresh allowance. A row is a few dozen bytes per live payment called back.
 * Frozen once landed.
 */
export class Migration20261207000001_partner_callback_signals extends Migration {
  override name = 'Migration20261207000001_partner_callback_signals';

  override up(): void {
    this.addSql(`create table if not exists partner_callback_signals (
      payment_id text primary key,
      last_signal_at timestamptz not null,
      signals integer not null check (signals > 0)
    )`);
  }
}
