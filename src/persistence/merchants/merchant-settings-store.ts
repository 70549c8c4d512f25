import { maskAccountNumber, type SealedAccountNumber } from '../../domain/settlement-account';
import type { Orm } from '../orm';
import type { CurrencyAmounts } from '../../domain/live-limits';
import { readLiveLimits, writeLiveLimits, type LiveLimits } from './live-limits-store';
import { findBank } from '../payouts/payout-reference';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeActor } from '../../domain/operator-action';
import { notificationId } from '../../notifications/notification-id';
import { recordChange } from '../operators/change-audit';
import { systemActor } from './merchant-store';
import { MERCHANT_WITHOUT_EMAIL } from '../../notifications/notification-kinds';

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
  /** Issue 46: the merchant's own routes (RAIL_ROUTES' syntax), present once set: each takes the place of the start's route of its channel and currency. */
  rail_routes?: string;
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
  /** Issue 46: `--routes TEXT` (checked by parseRailRoutes, in its text form); null clears them (`--routes ""`). */
  railRoutes?: string | null;
}

type Row = {
  id: string;
  payout_review_threshold: string;
  settlement_bank_code: string | null;
  settlement_account_masked: string | null;
  /** Plain text: only on a row written before migration 20261125000005 and not sealed yet. */
  settlement_account_number: string | null;
  notification_email: string | null;
  rail_routes: string | null;
};

const COLUMNS = `id, payout_review_threshold::text as payout_review_threshold, settlement_bank_code, settlement_account_masked, settlement_account_number, notification_email, rail_routes`;

import { DEFAULT_SETTLEMENT_ACCOUNT_HOLD_MS } from '../../config';

export interface SettingsChangeOptions {
  /** How long a replaced settlement account holds the merchant's live settlements (SETTLEMENT_ACCOUNT_HOLD). */
  holdMs?: number;
  /**
   * Opens a sealed account number (SECRETS_KEY), so that setting the account it already has is no
   * change. Without it a settlement account given always counts as a change.
   */
  openAccount?: (sealed: string) => string;
}

/** What `merchants set` changed: the settings after, the fields changed, and what the change set off. */
export interface SettingsChangeResult {
  settings: MerchantSettings;
  /** The fields changed (`payout_review_threshold`, `settlement_account`, `notification_email`, `live_max_amount`, `live_daily_limit`); empty: nothing changed, no audit row. */
  changed: string[];
  /** The change's operator_audit row; null when nothing changed. */
  auditId: string | null;
  /** A replaced settlement account: live settlements held until this time. */
  heldUntil: string | null;
  /** A replaced settlement account: the email to the merchant's notification address (pending; skipped when it has none). */
  notification: { id: string; status: 'pending' | 'skipped' } | null;
}

type LockedRow = Row & { settlement_account_sealed: string | null };

/** One field's values before and after, as the audit row keeps them (never a whole account number). */
type Diff = Record<string, unknown>;

function limitsDiff(before: CurrencyAmounts, given: CurrencyAmounts | undefined): { before: CurrencyAmounts; after: CurrencyAmounts } | null {
  if (!given) return null;
  const changed = Object.keys(given).filter((currency) => before[currency] !== given[currency]);
  if (changed.length === 0) return null;
  return { before: Object.fromEntries(changed.map((c) => [c, before[c] ?? null])) as CurrencyAmounts, after: Object.fromEntries(changed.map((c) => [c, given[c]])) as CurrencyAmounts };
}

function sameAccount(row: LockedRow, account: SettlementAccount, open: ((sealed: string) => string) | undefined): boolean {
  if (!open || row.settlement_bank_code !== account.bankCode) return false;
  const given = open(account.account.sealed);
  if (row.settlement_account_sealed === null) return row.settlement_account_number === given;
  try {
    return open(row.settlement_account_sealed) === given;
  } catch {
    // A stored number this key cannot open (sealed under a key since dropped): replacing it is a change.
    return false;
  }
}

const accountView = (row: LockedRow): { bank_code: string; account_masked: string } | null => {
  const masked = row.settlement_account_masked ?? (row.settlement_account_number === null ? null : maskAccountNumber(row.settlement_account_number));
  return row.settlement_bank_code && masked ? { bank_code: row.settlement_bank_code, account_masked: masked } : null;
};

/**
 * `merchants set ID [--payout-review-threshold N] [--settlement-bank CODE --settlement-account NUMBER]
 * [--live-max-amount CUR:N] [--live-daily-limit CUR:N] [--notification-email EMAIL]` (issue 43:
 * settings that move money are audited). In one transaction, the merchant row locked: the values
 * given are compared with the stored ones; those that differ are written, with one operator_audit row
 * (`merchant.settings_update`: the actor's operator and reason, each changed field's old and new
 * value, the account number masked only). Nothing different: nothing written, no audit row
 * (`changed` empty). The threshold applies to payouts created from now on; the settlement account,
 * which must be a bank of the reference list, to settlement batches swept from now on (the number
 * written sealed, with its masked form; a plain number left from before migration 20261125000005 is
 * cleared); live limits per currency in `live_limits`, the currencies not named keeping theirs.
 *
 * A settlement account that replaces another (bank or number) also, in the same transaction, holds
 * the merchant's live settlements until now + `holdMs` (`merchants.settlement_held_until`: the daily
 * run skips its live balances meanwhile; sandbox is not held) and writes the email that tells the
 * merchant's notification address (a `settlement_account_changed` notification whose source is the
 * audit row; skipped when the merchant has no address). The caller starts its workflow
 * (startNotificationWorkflow) after the commit; the notification relay's sweep starts it otherwise.
 * Throws for an unknown merchant, bank or currency; nothing changes then.
 */
export async function changeMerchantSettings(
  orm: Orm,
  merchantId: string,
  change: MerchantSettingsChange,
  actor: ChangeActor,
  options: SettingsChangeOptions = {},
): Promise<SettingsChangeResult> {
  if (change.payoutReviewThreshold === undefined && !change.settlementAccount && change.notificationEmail === undefined && !change.liveMaxAmount && !change.liveDailyLimit && change.railRoutes === undefined) throw new Error('nothing to set');
  if (change.settlementAccount && !(await findBank(orm, change.settlementAccount.bankCode))) {
    throw new Error(`unknown settlement bank "${change.settlementAccount.bankCode}"; the codes are those of GET /v1/reference/banks`);
  }
  return orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<LockedRow[]>(`select ${COLUMNS}, settlement_account_sealed from merchants where id = ? for update`, [merchantId]);
    const row = rows[0];
    if (!row) throw new Error(`merchant ${merchantId} does not exist`);
    const limitsBefore = await readLiveLimits(em, merchantId);
    const before: Diff = {};
    const after: Diff = {};
    const sets: string[] = [];
    const params: unknown[] = [];
    if (change.payoutReviewThreshold !== undefined && Number(row.payout_review_threshold) !== change.payoutReviewThreshold) {
      before.payout_review_threshold = Number(row.payout_review_threshold);
      after.payout_review_threshold = change.payoutReviewThreshold;
      sets.push('payout_review_threshold = ?');
      params.push(change.payoutReviewThreshold);
    }
    const oldAccount = accountView(row);
    let replaced = false;
    if (change.settlementAccount && !sameAccount(row, change.settlementAccount, options.openAccount)) {
      const { bankCode, account } = change.settlementAccount;
      before.settlement_account = oldAccount;
      after.settlement_account = { bank_code: bankCode, account_masked: account.masked };
      sets.push('settlement_bank_code = ?', 'settlement_account_sealed = ?', 'settlement_account_masked = ?', 'settlement_account_number = null');
      params.push(bankCode, account.sealed, account.masked);
      replaced = oldAccount !== null;
    }
    if (change.notificationEmail !== undefined && (row.notification_email ?? null) !== change.notificationEmail) {
      before.notification_email = row.notification_email ?? null;
      after.notification_email = change.notificationEmail;
      sets.push('notification_email = ?');
      params.push(change.notificationEmail);
    }
    if (change.railRoutes !== undefined && (row.rail_routes ?? null) !== change.railRoutes) {
      before.rail_routes = row.rail_routes ?? null;
      after.rail_routes = change.railRoutes;
      sets.push('rail_routes = ?');
      params.push(change.railRoutes);
    }
    const max = limitsDiff(limitsBefore.maxAmount, change.liveMaxAmount);
    const daily = limitsDiff(limitsBefore.dailyLimit, change.liveDailyLimit);
    if (max) [before.live_max_amount, after.live_max_amount] = [max.before, max.after];
    if (daily) [before.live_daily_limit, after.live_daily_limit] = [daily.before, daily.after];
    const changed = Object.keys(after);
    if (changed.length === 0) return { settings: settingsOf(row, limitsBefore), changed, auditId: null, heldUntil: null, notification: null };

    let heldUntil: string | null = null;
    if (replaced) {
      sets.push(`settlement_held_until = greatest(coalesce(settlement_held_until, now()), now() + ?::interval)`);
      params.push(`${Math.max(0, Math.round(options.holdMs ?? DEFAULT_SETTLEMENT_ACCOUNT_HOLD_MS))} milliseconds`);
    }
    const updated = sets.length > 0 ? await em.execute<(Row & { held_until: Date | string | null })[]>(`update merchants set ${sets.join(', ')} where id = ? returning ${COLUMNS}, settlement_held_until as held_until`, [...params, merchantId]) : [{ ...row, held_until: null }];
    if (replaced && updated[0].held_until !== null) {
      heldUntil = new Date(updated[0].held_until).toISOString();
      after.settlement_held_until = heldUntil;
    }
    if (max || daily) await writeLiveLimits(em, merchantId, { maxAmount: max?.after, dailyLimit: daily?.after });
    const auditId = await recordChange(em, actor, { action: 'merchant.settings_update', subjectId: merchantId, merchantId, environment: null, before, after });
    const notification = replaced ? await writeAccountChangeNotification(em, merchantId, auditId, updated[0].notification_email) : null;
    return { settings: settingsOf(updated[0], await readLiveLimits(em, merchantId)), changed, auditId, heldUntil, notification };
  });
}

/**
 * The email of a replaced settlement account (kind `settlement_account_changed`, to the merchant, live:
 * the account is where live money goes), its source the change's audit row, its id fixed by that row.
 */
async function writeAccountChangeNotification(em: EntityManager, merchantId: string, auditId: string, email: string | null): Promise<{ id: string; status: 'pending' | 'skipped' }> {
  const id = notificationId(auditId, 'merchant');
  const status = email ? 'pending' : 'skipped';
  await em.execute(
    `insert into notifications (id, merchant_id, environment, kind, recipient, source_id, resource_id, channel, to_masked, status, last_error, created_at, updated_at, completed_at)
     values (?, ?, 'live', 'settlement_account_changed', 'merchant', ?, ?, 'email', null, ?, ?, date_trunc('milliseconds', now()), now(), ${email ? 'null' : 'now()'})`,
    [id, merchantId, auditId, merchantId, status, email ? null : MERCHANT_WITHOUT_EMAIL],
  );
  return { id, status };
}

/**
 * A settings change made by code rather than an operator (merchants create --email, the simulator,
 * seeds, tests): changeMerchantSettings with `actor` (default: the system), answering the settings.
 */
export async function updateMerchantSettings(orm: Orm, merchantId: string, change: MerchantSettingsChange, actor: ChangeActor = systemActor('merchant settings set'), options: SettingsChangeOptions = {}): Promise<MerchantSettings> {
  return (await changeMerchantSettings(orm, merchantId, change, actor, options)).settings;
}

/** A merchant as the portal's Settings page shows it: its name, when it was verified, and its settings as `merchants set` answers them. */
export interface MerchantAccount {
  name: string;
  verifiedAt: string | null;
  /** While in force: the settlement account was replaced, live settlements held until then (issue 43). */
  settlementHeldUntil: string | null;
  settings: MerchantSettings;
}

/** Reads what `merchants set` (and `merchants verify`) stored, the settlement account masked (never whole); null for an unknown merchant. */
export async function readMerchantAccount(orm: Orm, merchantId: string): Promise<MerchantAccount | null> {
  const rows = await orm.em
    .fork()
    .execute<(Row & { name: string; verified_at: Date | string | null; held_until: Date | string | null })[]>(
      `select ${COLUMNS}, name, verified_at, case when settlement_held_until > now() then settlement_held_until end as held_until from merchants where id = ?`,
      [merchantId],
    );
  const row = rows[0];
  if (!row) return null;
  const limits = await readLiveLimits(orm.em.fork(), merchantId);
  return {
    name: row.name,
    verifiedAt: row.verified_at === null ? null : new Date(row.verified_at).toISOString(),
    settlementHeldUntil: row.held_until === null ? null : new Date(row.held_until).toISOString(),
    settings: settingsOf(row, limits),
  };
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
  if (row.rail_routes) settings.rail_routes = row.rail_routes;
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
