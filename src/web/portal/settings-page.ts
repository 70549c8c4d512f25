import type { MerchantAccount } from '../../persistence/merchants/merchant-settings-store';
import type { UsageToday } from '../../persistence/merchants/live-limits-store';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { formatMoney, type MinorUnits } from './balances-money';
import { when } from './time-html';
import { portalPage, type Frame } from './layout';

export interface SettingsView {
  merchantId: string;
  account: MerchantAccount;
  /** The settlement bank's name (reference list), when known. */
  bankName: string | null;
  /** Today's live usage by currency (only currencies used today). */
  usageToday: Record<string, UsageToday>;
  /** Requests per second per merchant on this environment's API (RATE_LIMIT_*). */
  rateLimit: number;
  units: MinorUnits;
}

/** The currency the payout review threshold is shown in as an example (it is minor units of whatever currency a payout is in). */
const EXAMPLE_CURRENCY = 'GHS';

const grouped = (n: number | string) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const minor = (n: number | string, units: MinorUnits) => html`${grouped(n)} minor units (${formatMoney(n, EXAMPLE_CURRENCY, units)} for a ${EXAMPLE_CURRENCY} payment)`;
const cli = (text: string) => html`<code>${text}</code>`;

/** Settings, read only: what `merchants set` and `merchants verify` stored, and where each is changed. */
export function settingsPage(frame: Frame, view: SettingsView): HtmlSafeString {
  const { account, units } = view;
  const s = account.settings;
  const set = `npm run cli -- merchants set ${view.merchantId}`;
  const settlement = s.settlement_account
    ? html`${view.bankName ? `${view.bankName} (${s.settlement_account.bank_code})` : s.settlement_account.bank_code}, account <span id="settlement-account-masked">${s.settlement_account.account_masked}</span>`
    : 'None yet: settlement runs skip this merchant until one is set.';
  const env = frame.environment === 'sandbox' ? 'sandbox' : 'live';
  const limitVar = frame.environment === 'sandbox' ? 'RATE_LIMIT_SANDBOX' : 'RATE_LIMIT_LIVE';
  return portalPage(
    'Settings',
    html`<h1>Settings</h1>
<p>These settings are read only here. The platform's operator changes them with the command line (${cli('merchants set')}, ${cli('merchants verify')}); ask your operator for a change. Account numbers are never shown whole.</p>
<h2>Merchant</h2>
<dl class="facts" id="merchant">
<dt>Name</dt><dd id="merchant-name">${account.name}</dd>
<dt>Merchant id</dt><dd id="merchant-id"><code>${view.merchantId}</code></dd>
<dt>Verified</dt><dd id="verified">${account.verifiedAt ? html`Yes, since ${when(account.verifiedAt)}: live money can move.` : 'Not yet: live charges and payouts are refused until the operator verifies the account.'} <small>Changed with ${cli(`npm run cli -- merchants verify ${view.merchantId}`)}.</small></dd>
</dl>
<h2>Settlement and notifications</h2>
<dl class="facts">
<dt>Settlement account</dt><dd id="settlement-account">${settlement} <small>Changed with ${cli(`${set} --settlement-bank CODE --settlement-account NUMBER`)}.</small></dd>
${settlementHold(account.settlementHeldUntil)}<dt>Notification email</dt><dd id="notification-email">${s.notification_email ? s.notification_email : 'None set: the merchant notification emails (payouts held for review, settlements, disputes) have nowhere to go.'} <small>Changed with ${cli(`${set} --notification-email EMAIL`)}.</small></dd>
<dt>Payout review threshold</dt><dd id="payout-review-threshold">Payouts of ${minor(s.payout_review_threshold, units)} or more are held for review. <small>Changed with ${cli(`${set} --payout-review-threshold N`)}.</small></dd>
</dl>
<h2>Live limits</h2>
<p>Kept per currency: a live payment is checked against the limits of its own currency, and amounts of different currencies are never added together. They apply to live charges and payouts only; a live create past one is refused with <code>amount_limit_exceeded</code>. A day is a UTC day; charges and payouts each count against the daily limit. A currency without a limit has none.</p>
${liveLimits(view)}
<p><small>Changed with ${cli(`${set} --live-max-amount CUR:N --live-daily-limit CUR:N`)} (N in minor units of CUR, e.g. ${cli('GHS:500000')} for GHS 5,000.00).</small></p>
<h2>API rate limit (${env})</h2>
<p id="rate-limit">${view.rateLimit} requests per second per merchant on the ${env} API, with bursts up to twice that (set by the operator: ${cli(limitVar)}). Every API answer's <code>RateLimit-Limit</code> header gives the limit in force.</p>`,
    frame,
  );
}

/**
 * While a replaced settlement account holds the live settlements (issue 43): until when, and why. The
 * money stays in the available balance; the first run after the hold pays it to the new account.
 */
function settlementHold(heldUntil: string | null): HtmlSafeString | '' {
  if (!heldUntil) return '';
  return html`<dt>Live settlements</dt><dd id="settlement-hold"><strong>Held until ${when(heldUntil)}</strong>: the settlement account was changed, and live settlements wait a cooling period, as a safeguard against account takeover. Your balance stays available; the first settlement run after that pays it to the new account. If you did not ask for this change, contact your operator at once.</dd>
`;
}

/** The live limits and today's usage, one row per currency that has a limit or was used today. */
function liveLimits(view: SettingsView): HtmlSafeString {
  const { units } = view;
  const s = view.account.settings;
  const max = s.live_max_amount ?? {};
  const daily = s.live_daily_limit ?? {};
  const currencies = [...new Set([...Object.keys(max), ...Object.keys(daily), ...Object.keys(view.usageToday)])].sort();
  const none = Object.keys(max).length === 0 && Object.keys(daily).length === 0;
  const money = (n: number | string | undefined, currency: string) => (n === undefined ? 'No limit' : formatMoney(n, currency, units));
  const rows = currencies.map((c) => {
    const used = view.usageToday[c] ?? { charge: '0', payout: '0' };
    return html`<tr id="live-limits-${c}"><th scope="row">${c}</th><td class="live-max-amount">${money(max[c], c)}</td><td class="live-daily-limit">${money(daily[c], c)}</td><td class="live-usage-charges">${money(used.charge, c)}</td><td class="live-usage-payouts">${money(used.payout, c)}</td></tr>`;
  });
  return html`${none ? html`<p id="live-limits-none">No limit set in any currency.</p>\n` : ''}${
    rows.length === 0
      ? ''
      : html`<table id="live-limits"><thead><tr><th scope="col">Currency</th><th scope="col">Per transaction</th><th scope="col">Per day, charges and payouts each</th><th scope="col">Charges today (UTC)</th><th scope="col">Payouts today (UTC)</th></tr></thead>
<tbody>${join(rows, '\n')}</tbody></table>`
  }`;
}
