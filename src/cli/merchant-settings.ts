import { parseCurrencyLimits } from '../domain/live-limits';
import { normalizeBankCode, parseSettlementAccountNumber, sealAccountNumber } from '../domain/settlement-account';
import { parseThreshold, type MerchantSettingsChange } from '../persistence/merchants/merchant-settings-store';
import type { SecretBox } from '../support/secret-box';
import { emailOption, UsageError, type Values } from './shared';

/**
 * `merchants set` options: the review threshold and/or the settlement account (bank and number
 * together; the number sealed with `box()`, SECRETS_KEY, which only a settlement account needs).
 */
export function merchantSettingsChange(values: Values, box: () => SecretBox): MerchantSettingsChange {
  const change: MerchantSettingsChange = {};
  const raw = values.payoutReviewThreshold;
  if (raw !== undefined) {
    const threshold = parseThreshold(raw);
    if (threshold === null) throw new UsageError('--payout-review-threshold must be a positive integer of minor units');
    change.payoutReviewThreshold = threshold;
  }
  const bank = values.settlementBank;
  const account = values.settlementAccount;
  if ((bank === undefined) !== (account === undefined)) throw new UsageError('--settlement-bank and --settlement-account go together');
  if (bank !== undefined && account !== undefined) {
    const bankCode = normalizeBankCode(bank);
    if (bankCode === null) throw new UsageError('--settlement-bank must be a bank code of GET /v1/reference/banks');
    // Never repeat the number in a message.
    const accountNumber = parseSettlementAccountNumber(account);
    if (accountNumber === null) throw new UsageError('--settlement-account must be an account number of 6 to 20 digits');
    change.settlementAccount = { bankCode, account: sealAccountNumber(box(), accountNumber) };
  }
  for (const [option, field] of [
    ['live-max-amount', 'liveMaxAmount'],
    ['live-daily-limit', 'liveDailyLimit'],
  ] as const) {
    const raw = values[field];
    if (raw === undefined) continue;
    const limits = parseCurrencyLimits(raw, `--${option}`);
    if ('error' in limits) throw new UsageError(limits.error);
    change[field] = limits.amounts;
  }
  const notificationEmail = values.notificationEmail;
  if (notificationEmail !== undefined) change.notificationEmail = notificationEmail.trim() === '' ? null : emailOption(notificationEmail, '--notification-email');
  if (Object.keys(change).length === 0) throw new UsageError('nothing to set: pass --payout-review-threshold N, --settlement-bank CODE --settlement-account NUMBER, --live-max-amount CUR:N, --live-daily-limit CUR:N and/or --notification-email EMAIL');
  return change;
}
