import { BALANCE_TRANSACTION_TYPES, type BalanceTransaction } from '../../domain/balance-transaction';
import type { BalanceFigures } from '../../persistence/ledger/account-balances';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { urlHtml } from '../html-url';
import { chartHtml, type ChartDay } from './balances-chart';
import { formatMoney, type MinorUnits } from './balances-money';
import { when } from './time-html';
import { filterQuery, type BalanceFilters } from './balances-query';
import { guardFields, portalPage, type Frame } from './layout';

export interface BalancesView {
  figures: BalanceFigures;
  units: MinorUnits;
  /** Currencies of the reference list (the filter's choices). */
  currencies: string[];
  chart: { currency: string; days: ChartDay[] } | null;
  filters: BalanceFilters;
  /** The current page's cursor as received (null: the first page). */
  cursor: string | null;
  items: BalanceTransaction[];
  /** The next page's cursor, when there are more. */
  nextCursor: string | null;
  error?: string;
  /** Live, while a settlement account change holds the live settlements (issue 43): the hold's end. */
  settlementHeldUntil?: string | null;
}

const money = (amount: bigint | string, currency: string, units: MinorUnits) => formatMoney(amount, currency, units);

function balancesTable(view: BalancesView): HtmlSafeString {
  const { figures, units } = view;
  if (figures.available.length === 0) return html`<p id="no-balances">No money has moved in this environment yet: there are no balances.</p>`;
  const of = (list: { currency: string; amount: string }[], currency: string) => list.find((b) => b.currency === currency)?.amount ?? '0';
  return html`<table id="balances"><caption>Balances by currency</caption>
<thead><tr><th scope="col">Currency</th><th scope="col" class="num">Available</th><th scope="col" class="num">Pending</th><th scope="col" class="num">Reserved</th></tr></thead>
<tbody>
${join(
  figures.available.map(
    ({ currency }) =>
      html`<tr data-currency="${currency}" data-available="${of(figures.available, currency)}" data-pending="${of(figures.pending, currency)}" data-reserved="${of(figures.reserved, currency)}"><th scope="row">${currency}</th><td class="num">${money(of(figures.available, currency), currency, units)}</td><td class="num">${money(of(figures.pending, currency), currency, units)}</td><td class="num">${money(of(figures.reserved, currency), currency, units)}</td></tr>`,
  ),
  '\n',
)}
</tbody></table>`;
}

/** The current filters as a form's hidden fields (the chart's currency picker, the CSV export). */
const hiddenFilters = (filters: BalanceFilters): HtmlSafeString[] => Object.entries(filters).map(([name, value]) => html`<input type="hidden" name="${name}" value="${String(value)}">`);

function chartSection(view: BalancesView): HtmlSafeString {
  if (!view.chart) return html``;
  const currencies = view.figures.available.map((b) => b.currency);
  const picker =
    currencies.length > 1
      ? html`<form method="get" action="/balances" class="inline-filter">${hiddenFilters(view.filters)}
<label for="chart-currency">Currency of the chart</label>
<select name="chart" id="chart-currency">${currencies.map((c) => html`<option value="${c}"${c === view.chart!.currency ? html` selected` : ''}>${c}</option>`)}</select>
<button type="submit" class="secondary">Show</button></form>`
      : '';
  return html`<h2>Last 30 days (${view.chart.currency})</h2>
<p>Each bar is the <strong>available</strong> balance at the end of a UTC day (today's: now), worked back from today's balance through the day's balance transactions on the available balance. Pending and reserved money is not in it.</p>
${picker}${chartHtml(view.chart.currency, view.chart.days, view.units)}`;
}

function filterForm(view: BalancesView): HtmlSafeString {
  const f = view.filters;
  const option = (value: string, label: string, current: string | undefined) => html`<option value="${value}"${value === (current ?? '') ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/balances" id="balance-filters" class="filters">
${view.chart ? html`<input type="hidden" name="chart" value="${view.chart.currency}">` : ''}
<div><label for="filter-type">Type</label>
<select name="type" id="filter-type">${option('', 'All types', f.type)}${BALANCE_TRANSACTION_TYPES.map((t) => option(t, t, f.type))}</select></div>
<div><label for="filter-currency">Currency</label>
<select name="currency" id="filter-currency">${option('', 'All currencies', f.currency)}${view.currencies.map((c) => option(c, c, f.currency))}</select></div>
<div><label for="filter-source">Source id (charge, payout, refund, settlement or dispute)</label>
<input type="text" name="source" id="filter-source" value="${f.source ?? ''}" autocomplete="off" spellcheck="false"></div>
<div><label for="filter-from">From (UTC date, included)</label>
<input type="date" name="from" id="filter-from" value="${f.from ?? ''}"></div>
<div><label for="filter-to">To (UTC date, included)</label>
<input type="date" name="to" id="filter-to" value="${f.to ?? ''}"></div>
<div><button type="submit" id="apply-filters">Filter</button> <a href="/balances" id="clear-filters">Clear filters</a></div>
</form>`;
}

function transactionsTable(view: BalancesView): HtmlSafeString {
  const { units } = view;
  if (view.items.length === 0) return html`<p id="no-balance-transactions">No balance transactions${Object.keys(view.filters).length ? ' match these filters' : ' yet'}.</p>`;
  const source = (id: string) => (id.startsWith('txn_') ? html`<a href="/payments/${encodeURIComponent(id)}">${id}</a>` : html`<code>${id}</code>`);
  return html`<table id="balance-transactions"><caption>Balance transactions, newest first</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Type</th><th scope="col">Source</th><th scope="col">Balance</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Fee</th><th scope="col" class="num">Net</th><th scope="col">Id</th></tr></thead>
<tbody>
${join(
  view.items.map(
    (t) =>
      html`<tr data-id="${t.id}"><td>${when(t.createdAt)}</td><td>${t.type}</td><td>${source(t.source)}</td><td>${t.balance}</td><td class="num">${money(t.amount, t.currency, units)}</td><td class="num">${money(t.fee, t.currency, units)}</td><td class="num">${money(t.net, t.currency, units)}</td><td class="bt-id"><small><code>${t.id}</code></small></td></tr>`,
  ),
  '\n',
)}
</tbody></table>`;
}

/** Balances: the figures of GET /v1/balances, the 30-day chart, and the balance transactions with the API's filters, paged, and their CSV export. */
export function balancesPage(frame: Frame, view: BalancesView): HtmlSafeString {
  const env = frame.environment === 'sandbox' ? 'sandbox' : 'live';
  const note = view.error ? html`<p class="error" role="alert" id="message">${view.error}</p>\n` : '';
  const chart = view.chart ? { chart: view.chart.currency } : {};
  const pager = [
    view.cursor ? html`<a href="/balances?${urlHtml(filterQuery(view.filters, chart))}" id="first-page">First page</a>` : null,
    view.nextCursor ? html`<a href="/balances?${urlHtml(filterQuery(view.filters, { ...chart, cursor: view.nextCursor }))}" id="next-page" rel="next">Next page (older)</a>` : null,
  ].filter((link) => link !== null);
  return portalPage(
    'Balances',
    html`<h1>Balances (${env})</h1>
${note}${view.settlementHeldUntil ? html`<p class="notice" role="status" id="settlement-hold"><strong>Live settlements are held until ${when(view.settlementHeldUntil)}</strong>: your settlement account was changed, and settlements wait a cooling period as a safeguard against account takeover. Your available balance is paid to the new account by the first settlement run after that (Settings shows the account). If you did not ask for this change, contact your operator at once.</p>\n` : ''}<p>Available money can be paid out; pending money is collected but not yet captured; reserved money is committed to payouts, refunds, settlements or disputes in flight.</p>
${balancesTable(view)}
${chartSection(view)}
<h2>Balance transactions</h2>
<p>Every movement of your available and reserved balances: their nets add up to the balances above.</p>
${filterForm(view)}
<form method="post" action="/balances/transactions.csv" id="export-form">${guardFields(frame)}${hiddenFilters(view.filters)}<button type="submit" class="secondary" id="export-csv">Export all matching balance transactions (CSV)</button></form>
${transactionsTable(view)}
${pager.length ? html`<p class="pager">${join(pager, ' · ')}</p>` : ''}`,
    frame,
  );
}
