import { maskAccountNumber, type SealedAccountNumber } from '../../domain/settlement-account';
import type { Orm } from '../orm';
import type { CurrencyAmounts } from '../../domain/live-limits';
import { readLiveLimits, writeLiveLimits, type LiveLimits } from './live-limits-store';
import { findBank } from '../payouts/payout-reference';

export interface MerchantSettings {
  id: string;
  object: 'merchant';
  payout_review_threshold: number;
  /** Present once the merchant has a settlement account; the number masked (never whole). */
  settlement_account?: { bank_code: string; account_masked: string };
  /** Present once the merchant has one: where its notification emails go (docs/notifications.md). */
  notification_email?: string;
  /**
   * Live limits per currency, in minor units of each (`--live-max-amount CUR:N`, `--live-daily-limit
   * CUR:N`; src/domain/live-limits.ts): `{"GHS": 500000}`; present once one is set.
   */
  live_max_amount?: CurrencyAmounts;
  live_daily_limit?: CurrencyAmounts;
}

export interface SettlementAccount {
  bankCode: string;
  /**
   * The number (digits only: parseSettlementAccountNumber) sealed with SECRETS_KEY, and masked
   * (src/domain/settlement-account.ts sealAccountNumber): this store never holds it in the clear.
   */
  account: SealedAccountNumber;
}

export interface MerchantSettingsChange {
  payoutReviewThreshold?: number;
  settlementAccount?: SettlementAccount;
  /** `--notification-email EMAIL` (an address checked by parseEmail); null clears it (`--notification-email ""`). */
  notificationEmail?: string | null;
  /** Per currency; the currencies not named keep their limits. */
  liveMaxAmount?: CurrencyAmounts;
  liveDailyLimit?: CurrencyAmounts;
}

type Row = {
  id: string;
  payout_review_threshold: string;
  settlement_bank_code: string | null;
  settlement_account_masked: string | null;
  /** Plain text: only on a row written before migration 20261125000005 and not sealed yet. */
  settlement_account_number: string | null;
  notification_email: string | null;
};

const COLUMNS = `id, payout_review_threshold::text as payout_review_threshold, settlement_bank_code, settlement_account_masked, settlement_account_number, notification_email`;

/**
 * `merchants set ID [--payout-review-threshold N] [--settlement-bank CODE --settlement-account NUMBER]`:
 * one update of the merchant row. The threshold applies to payouts created from now on (payouts of at
 * least N minor units are held for review; default 5,000,000); the settlement account, which must be
 * a bank of the reference list, to settlement batches swept from now on. Bank code and number are set
 * together; the number is written sealed, with its masked form, and a plain number left from before
 * migration 20261125000005 is cleared. Live limits (`--live-max-amount CUR:N --live-daily-limit CUR:N`)
 * are set per currency in `live_limits`, the currencies not named keeping theirs, in the same
 * transaction. Throws for an unknown merchant, bank or currency; nothing changes then.
 */
export async function updateMerchantSettings(orm: Orm, merchantId: string, change: MerchantSettingsChange): Promise<MerchantSettings> {
  const sets: string[] = [];
  const params: unknown[] = [];
  if (change.payoutReviewThreshold !== undefined) {
    sets.push('payout_review_threshold = ?');
    params.push(change.payoutReviewThreshold);
  }
  if (change.settlementAccount) {
    const { bankCode, account } = change.settlementAccount;
    if (!(await findBank(orm, bankCode))) throw new Error(`unknown settlement bank "${bankCode}"; the codes are those of GET /v1/reference/banks`);
    sets.push('settlement_bank_code = ?', 'settlement_account_sealed = ?', 'settlement_account_masked = ?', 'settlement_account_number = null');
    params.push(bankCode, account.sealed, account.masked);
  }
  if (change.notificationEmail !== undefined) {
    sets.push('notification_email = ?');
    params.push(change.notificationEmail);
  }
  const limits: Partial<LiveLimits> = { maxAmount: change.liveMaxAmount, dailyLimit: change.liveDailyLimit };
  if (sets.length === 0 && !change.liveMaxAmount && !change.liveDailyLimit) throw new Error('nothing to set');
  return orm.em.fork().transactional(async (em) => {
    const rows =
      sets.length > 0
        ? await em.execute<Row[]>(`update merchants set ${sets.join(', ')} where id = ? returning ${COLUMNS}`, [...params, merchantId])
        : await em.execute<Row[]>(`select ${COLUMNS} from merchants where id = ? for update`, [merchantId]);
    if (rows.length === 0) throw new Error(`merchant ${merchantId} does not exist`);
    await writeLiveLimits(em, merchantId, limits);
    return settingsOf(rows[0], await readLiveLimits(em, merchantId));
  });
}

/** A merchant as the portal's Settings page shows it: its name, when it was verified, and its settings as `merchants set` answers them. */
export interface MerchantAccount {
  name: string;
  verifiedAt: string | null;
  settings: MerchantSettings;
}

/** Reads what `merchants set` (and `merchants verify`) stored, the settlement account masked (never whole); null for an unknown merchant. */
export async function readMerchantAccount(orm: Orm, merchantId: string): Promise<MerchantAccount | null> {
  const rows = await orm.em
    .fork()
    .execute<(Row & { name: string; verified_at: Date | string | null })[]>(
      `select ${COLUMNS}, name, verified_at from merchants where id = ?`,
      [merchantId],
    );
  const row = rows[0];
  if (!row) return null;
  const limits = await readLiveLimits(orm.em.fork(), merchantId);
  return { name: row.name, verifiedAt: row.verified_at === null ? null : new Date(row.verified_at).toISOString(), settings: settingsOf(row, limits) };
}

function settingsOf(row: Row, limits: LiveLimits): MerchantSettings {
  const settings: MerchantSettings = {
    id: row.id,
    object: 'merchant',
    payout_review_threshold: Number(row.payout_review_threshold),
    ...(Object.keys(limits.maxAmount).length === 0 ? {} : { live_max_amount: limits.maxAmount }),
    ...(Object.keys(limits.dailyLimit).length === 0 ? {} : { live_daily_limit: limits.dailyLimit }),
  };
  const masked = row.settlement_account_masked ?? (row.settlement_account_number === null ? null : maskAccountNumber(row.settlement_account_number));
  if (row.settlement_bank_code && masked) settings.settlement_account = { bank_code: row.settlement_bank_code, account_masked: masked };
  if (row.notification_email) settings.notification_email = row.notification_email;
  return settings;
}

/**
 * `merchants set ID --payout-review-threshold N`: payouts of at least N minor units are held for
 * review (default 5,000,000). Applies to payouts created from now on. Throws for an unknown merchant.
 */
export function setPayoutReviewThreshold(orm: Orm, merchantId: string, threshold: number): Promise<MerchantSettings> {
  return updateMerchantSettings(orm, merchantId, { payoutReviewThreshold: threshold });
}

/** Parses `--payout-review-threshold`: a positive integer of minor units below 2^53, or null. */
export function parseThreshold(text: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}
