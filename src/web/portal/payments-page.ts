import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { formatIsoAmount } from '../../domain/money-format';
import { urlHtml } from '../html-url';
import { portalPage, type Frame } from './layout';
import { when } from './time-html';
import type { ApiObject, Payment } from './payments-data';
import { filterQuery, PAGE_SIZES, PAYMENT_TABS, TABS, type PaymentFilters } from './payments-filters';

/** An amount in minor units, with its currency (e.g. "GHS 150.00"). */
export const money = (amount: number, currency: string): HtmlSafeString => html`${formatIsoAmount(amount, currency)}`;

/** A link to a payment's detail page. */
export const paymentLink = (id: string): HtmlSafeString => html`<a href="/payments/${encodeURIComponent(id)}">${id}</a>`;

export const statusBadge = (status: string): HtmlSafeString => html`<span class="pay-status pay-status-${status}">${status.replace(/_/g, ' ')}</span>`;

const environmentName = (frame: Frame) => (frame.environment === 'sandbox' ? 'sandbox' : 'live');

/** The method and counterparty of a payment as its API object shows them (masked). */
export function counterparty(view: ApiObject): HtmlSafeString {
  switch (view.object) {
    case 'charge': {
      const customer = view.customer as { masked: string; name: string | null };
      return html`${String(view.channel).replace(/_/g, ' ')}<br><span class="masked">${customer.masked}</span>${customer.name ? ` ${customer.name}` : ''}`;
    }
    case 'payout': {
      const recipient = view.recipient as { masked: string; name: string };
      return html`${String(view.channel).replace(/_/g, ' ')}<br><span class="masked">${recipient.masked}</span> ${recipient.name}`;
    }
    case 'refund':
      return html`refund of ${paymentLink(String(view.charge))}`;
    case 'dispute':
      return html`${String(view.reason).replace(/_/g, ' ')}, on ${paymentLink(String(view.charge))}`;
    case 'settlement': {
      const destination = view.destination as { bank_code: string; account_masked: string };
      return html`bank ${destination.bank_code}<br><span class="masked">${destination.account_masked}</span>`;
    }
    default:
      return html``;
  }
}

/** Rows of payments (the list and a charge's refunds and disputes). */
export function paymentsTable(id: string, caption: string, rows: Payment[]): HtmlSafeString {
  return html`<table id="${id}" class="payments-table"><caption>${caption}</caption>
<thead><tr><th scope="col">ID</th><th scope="col" class="num">Amount</th><th scope="col">Currency</th><th scope="col">Status</th><th scope="col">Method / counterparty</th><th scope="col">Created</th></tr></thead>
<tbody>
${join(
  rows.map(
    ({ view }) =>
      html`<tr><td>${paymentLink(view.id)}</td><td class="num">${money(view.amount, view.currency)}</td><td>${view.currency}</td><td>${statusBadge(view.status)}</td><td>${counterparty(view)}</td><td>${when(view.created_at)}</td></tr>`,
  ),
  '\n',
)}
</tbody></table>`;
}

function tabs(filters: PaymentFilters): HtmlSafeString {
  return html`<nav aria-label="Payment types" class="pay-tabs" id="payment-tabs">${PAYMENT_TABS.map(
    (t) => html`<a href="/payments?type=${t}" id="tab-${t}"${t === filters.tab ? html` aria-current="page"` : ''}>${TABS[t].label}</a>`,
  )}</nav>`;
}

function options(values: readonly string[], selected: string | undefined, any: string): HtmlSafeString {
  return html`<option value="">${any}</option>${values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ''}>${v.replace(/_/g, ' ')}</option>`)}`;
}

/** The GET form of the list's filters: the API list's own (status, created, channel, reference, charge). */
function filterForm(filters: PaymentFilters): HtmlSafeString {
  const spec = TABS[filters.tab];
  const field = (label: HtmlSafeString, control: HtmlSafeString) => html`<div class="pay-field">${label}${control}</div>`;
  const fields = [
    field(html`<label for="f-status">Status</label>`, html`<select id="f-status" name="status">${options(spec.statuses, filters.status, 'Any status')}</select>`),
    spec.channels ? field(html`<label for="f-channel">Channel</label>`, html`<select id="f-channel" name="channel">${options(spec.channels, filters.channel, 'Any channel')}</select>`) : '',
    spec.referenceColumn
      ? field(html`<label for="f-reference">Your reference</label>`, html`<input type="text" id="f-reference" name="reference" maxlength="100" value="${filters.reference ?? ''}">`)
      : '',
    spec.chargeColumn
      ? field(html`<label for="f-charge">Charge ID</label>`, html`<input type="text" id="f-charge" name="charge" maxlength="28" placeholder="txn_…" value="${filters.charge ?? ''}">`)
      : '',
    field(html`<label for="f-created-from">Created from (UTC)</label>`, html`<input type="date" id="f-created-from" name="created_from" value="${filters.createdFrom ?? ''}">`),
    field(html`<label for="f-created-to">Created to (UTC)</label>`, html`<input type="date" id="f-created-to" name="created_to" value="${filters.createdTo ?? ''}">`),
    field(
      html`<label for="f-limit">Per page</label>`,
      html`<select id="f-limit" name="limit">${[...new Set([...PAGE_SIZES, filters.limit])]
        .sort((a, b) => a - b)
        .map((n) => html`<option value="${n}"${n === filters.limit ? html` selected` : ''}>${n}</option>`)}</select>`,
    ),
  ];
  return html`<form method="get" action="/payments" id="filters" class="pay-filters" aria-label="Filter ${spec.label.toLowerCase()}">
<input type="hidden" name="type" value="${filters.tab}">
${join(fields.filter((f): f is HtmlSafeString => f !== ''), '\n')}
<div class="pay-actions"><button type="submit" id="apply-filters">Apply filters</button> <a href="/payments?type=${filters.tab}" id="clear-filters">Clear filters</a></div>
</form>`;
}

const FIELD_NAMES: Record<string, string> = {
  type: 'type',
  limit: 'per page',
  cursor: 'page position (cursor)',
  status: 'status',
  channel: 'channel',
  reference: 'reference',
  charge: 'charge ID',
  created_from: 'created from',
  created_to: 'created to',
};

/** GET /payments: one tab's list, newest first, with the API list's filters and cursor paging. */
export function paymentsPage(frame: Frame, filters: PaymentFilters, rows: Payment[], nextCursor: string | null): HtmlSafeString {
  const spec = TABS[filters.tab];
  const label = spec.label.toLowerCase();
  const ignored = filters.ignored.length
    ? html`<p class="error" role="alert" id="ignored-filters">Not applied (not a value this list accepts): ${join(filters.ignored.map((f) => FIELD_NAMES[f] ?? f), ', ')}.</p>\n`
    : '';
  const filtered = !!(filters.status || filters.channel || filters.reference || filters.charge || filters.createdFrom || filters.createdTo);
  const table = rows.length
    ? paymentsTable('payments', `${spec.label} (${environmentName(frame)}), newest first${filters.cursor ? ', older page' : ''}`, rows)
    : html`<p id="no-payments">${filtered ? `No ${label} match these filters.` : filters.cursor ? `No older ${label}.` : `No ${label} in ${environmentName(frame)} yet.`}</p>`;
  const paging = [
    filters.cursor ? html`<a href="/payments?${urlHtml(filterQuery(filters))}" id="newest">Newest</a>` : null,
    nextCursor ? html`<a href="/payments?${urlHtml(filterQuery(filters, nextCursor))}" id="older" rel="next">Older</a>` : null,
  ].filter((link) => link !== null);
  return portalPage(
    `Payments: ${spec.label}`,
    html`<h1>Payments (${environmentName(frame)})</h1>
${tabs(filters)}
<h2>${spec.label}</h2>
${ignored}${filterForm(filters)}
${table}
${paging.length ? html`<nav aria-label="Pages" class="pay-paging">${join(paging, ' ')}</nav>` : ''}`,
    frame,
    'payments',
  );
}
