import type { MerchantAccount } from '../../persistence/merchant-settings-store';
import type { LimitedKind } from '../../persistence/live-limits-store';
import { escapeHtml } from '../../support/escape-html';
import { formatMoney, type MinorUnits } from './balances-money';
import { when } from './time-html';
import { portalPage, type Frame } from './layout';

export interface SettingsView {
  merchantId: string;
  account: MerchantAccount;
  /** The settlement bank's name (reference list), when known. */
  bankName: string | null;
  usageToday: Record<LimitedKind, string>;
  /** Requests per second per merchant on this environment's API (RATE_LIMIT_*). */
  rateLimit: number;
  units: MinorUnits;
}

/** The currency limits are shown in as an example (limits are minor units of whatever currency a payment is in). */
const EXAMPLE_CURRENCY = 'GHS';

const grouped = (n: number | string) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const minor = (n: number | string, units: MinorUnits) => `${grouped(n)} minor units (${escapeHtml(formatMoney(n, EXAMPLE_CURRENCY, units))} for a ${EXAMPLE_CURRENCY} payment)`;
const cli = (text: string) => `<code>${escapeHtml(text)}</code>`;

/** Settings, read only: what `merchants set` and `merchants verify` stored, and where each is changed. */
export function settingsPage(frame: Frame, view: SettingsView): string {
  const { account, units } = view;
  const s = account.settings;
  const set = `npm run cli -- merchants set ${view.merchantId}`;
  const settlement = s.settlement_account
    ? `${escapeHtml(view.bankName ? `${view.bankName} (${s.settlement_account.bank_code})` : s.settlement_account.bank_code)}, account <span id="settlement-account-masked">${escapeHtml(s.settlement_account.account_masked)}</span>`
    : 'None yet: settlement runs skip this merchant until one is set.';
  const env = frame.environment === 'sandbox' ? 'sandbox' : 'live';
  const limitVar = frame.environment === 'sandbox' ? 'RATE_LIMIT_SANDBOX' : 'RATE_LIMIT_LIVE';
  return portalPage(
    'Settings',
    `<h1>Settings</h1>
<p>These settings are read only here. The platform's operator changes them with the command line (${cli('merchants set')}, ${cli('merchants verify')}); ask your operator for a change. Account numbers are never shown whole.</p>
<h2>Merchant</h2>
<dl class="facts" id="merchant">
<dt>Name</dt><dd id="merchant-name">${escapeHtml(account.name)}</dd>
<dt>Merchant id</dt><dd id="merchant-id"><code>${escapeHtml(view.merchantId)}</code></dd>
<dt>Verified</dt><dd id="verified">${account.verifiedAt ? `Yes, since ${when(account.verifiedAt)}: live money can move.` : 'Not yet: live charges and payouts are refused until the operator verifies the account.'} <small>Changed with ${cli(`npm run cli -- merchants verify ${view.merchantId}`)}.</small></dd>
</dl>
<h2>Settlement and notifications</h2>
<dl class="facts">
<dt>Settlement account</dt><dd id="settlement-account">${settlement} <small>Changed with ${cli(`${set} --settlement-bank CODE --settlement-account NUMBER`)}.</small></dd>
<dt>Notification email</dt><dd id="notification-email">${s.notification_email ? escapeHtml(s.notification_email) : 'None set: the merchant notification emails (payouts held for review, settlements, disputes) have nowhere to go.'} <small>Changed with ${cli(`${set} --notification-email EMAIL`)}.</small></dd>
<dt>Payout review threshold</dt><dd id="payout-review-threshold">Payouts of ${minor(s.payout_review_threshold, units)} or more are held for review. <small>Changed with ${cli(`${set} --payout-review-threshold N`)}.</small></dd>
</dl>
<h2>Live limits</h2>
<p>They apply to live charges and payouts only; a live create past one is refused with <code>amount_limit_exceeded</code>. A day is a UTC day; charges and payouts each count against the daily limit.</p>
<dl class="facts">
<dt>Per transaction</dt><dd id="live-max-amount">${s.live_max_amount === undefined ? 'No limit set.' : `At most ${minor(s.live_max_amount, units)}.`} <small>Changed with ${cli(`${set} --live-max-amount N`)}.</small></dd>
<dt>Per day</dt><dd id="live-daily-limit">${s.live_daily_limit === undefined ? 'No limit set.' : `At most ${minor(s.live_daily_limit, units)} of charges, and as much of payouts.`} <small>Changed with ${cli(`${set} --live-daily-limit N`)}.</small></dd>
<dt>Used today (UTC)</dt><dd id="live-usage-today">Charges: <span id="live-usage-charges">${minor(view.usageToday.charge, units)}</span>; payouts: <span id="live-usage-payouts">${minor(view.usageToday.payout, units)}</span>.</dd>
</dl>
<h2>API rate limit (${env})</h2>
<p id="rate-limit">${view.rateLimit} requests per second per merchant on the ${env} API, with bursts up to twice that (set by the operator: ${cli(limitVar)}). Every API answer's <code>RateLimit-Limit</code> header gives the limit in force.</p>`,
    frame,
  );
}
