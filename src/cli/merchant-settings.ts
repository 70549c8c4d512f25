import { parseCurrencyLimits } from '../domain/live-limits';
import { formatRailRoutes, parseRailRoutes, routesProblem } from '../domain/rail-routes';
import { normalizeBankCode, parseSettlementAccountNumber, sealAccountNumber } from '../domain/settlement-account';
import type { Config } from '../config';
import type { ChangeActor } from '../domain/operator-action';
import { changeMerchantSettings, parseThreshold, type MerchantSettings, type MerchantSettingsChange } from '../persistence/merchants/merchant-settings-store';
import { loadNotificationConfig } from '../notifications/notification-config';
import { markNotificationsStarted } from '../persistence/notifications/notification-fanout-store';
import { secretBoxFor } from '../runtime/secrets-key';
import type { SecretBox } from '../support/secret-box';
import { startNotificationWorkflow } from '../temporal/notification-start';
import { withDatabase, withTemporal } from './connect';
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
  // The email of an account change goes to the address on file: never both in one command.
  if (notificationEmail !== undefined && change.settlementAccount) throw new UsageError('--notification-email and --settlement-account are changed in two commands, so the account change is emailed to the address on file');
  if (notificationEmail !== undefined) change.notificationEmail = notificationEmail.trim() === '' ? null : emailOption(notificationEmail, '--notification-email');
  const routes = values.routes;
  if (routes !== undefined) change.railRoutes = merchantRoutesOption(routes);
  if (Object.keys(change).length === 0) throw new UsageError('nothing to set: pass --payout-review-threshold N, --settlement-bank CODE --settlement-account NUMBER, --live-max-amount CUR:N, --live-daily-limit CUR:N, --notification-email EMAIL and/or --routes TEXT');
  return change;
}

/** What `merchants set` prints: the settings after, what changed and what that set off. */
export type MerchantSetView = MerchantSettings & {
  changed: string[];
  audit_id: string | null;
  note?: string;
  settlement_held_until?: string;
  notification?: { id: string; status: string };
};

/**
 * `merchants set`: the change and its audit row in one transaction (changeMerchantSettings). A
 * replaced settlement account's email is then started at once (its workflow, on the live
 * notification queue); when Temporal cannot be reached the change stands and the worker's relay sweep
 * starts the email within a minute (`notification.status` says which).
 */
export async function setMerchantSettings(config: Config, env: NodeJS.ProcessEnv, merchantId: string, change: MerchantSettingsChange, actor: ChangeActor): Promise<MerchantSetView> {
  const result = await withDatabase(config, (orm) =>
    changeMerchantSettings(orm, merchantId, change, actor, { holdMs: config.settlementAccountHoldMs, ...(change.settlementAccount ? { openAccount: (sealed: string) => secretBoxFor(config).open(sealed) } : {}) }),
  );
  const view: MerchantSetView = { ...result.settings, changed: result.changed, audit_id: result.auditId };
  if (result.changed.length === 0) view.note = 'nothing changed: the values given are the ones stored; no audit row written';
  if (result.heldUntil) view.settlement_held_until = result.heldUntil;
  const notification = result.notification;
  if (notification) {
    view.notification = notification;
    if (notification.status === 'pending') {
      try {
        await withTemporal(config, (temporal) => startNotificationWorkflow(temporal.client, config.taskQueue, { notificationId: notification.id, merchantId, environment: 'live', kind: 'settlement_account_changed', retryScheduleMs: loadNotificationConfig(env).retryScheduleMs }));
        await withDatabase(config, (orm) => markNotificationsStarted(orm, [notification.id]));
        view.notification = { ...notification, status: 'started' };
      } catch {
        view.notification = { ...notification, status: 'pending: Temporal could not be reached; the worker starts it' };
      }
    }
  }
  return view;
}

/**
 * `--routes TEXT` (issue 46): a merchant's own routes in RAIL_ROUTES' syntax, checked here (each
 * route's channel, currency, partners and weights; no card to the MoMo partner), kept in their text
 * form; "" clears them (the start's routes again). A route to a partner the API's start does not have
 * is skipped there, the start's route taking its place.
 */
export function merchantRoutesOption(raw: string): string | null {
  if (raw.trim() === '') return null;
  let text: string;
  try {
    const routes = parseRailRoutes(raw);
    const problem = routesProblem(routes, { momo: true, aggregator: true }, true);
    if (problem) throw new Error(problem);
    text = formatRailRoutes(routes);
  } catch (error) {
    throw new UsageError(`--routes: ${(error as Error).message.replace(/^RAIL_ROUTES:?\s*/, '')}`);
  }
  return text;
}
