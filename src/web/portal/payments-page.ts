import { escapeHtml } from '../../support/escape-html';
import { formatIsoAmount } from '../../domain/money-format';
import { portalPage, type Frame } from './layout';
import { when } from './time-html';
import type { ApiObject, Payment } from './payments-data';
import { filterQuery, PAGE_SIZES, PAYMENT_TABS, TABS, type PaymentFilters } from './payments-filters';

/** An amount in minor units, with its currency (e.g. "GHS 150.00"). */
export const money = (amount: number, currency: string): string => escapeHtml(formatIsoAmount(amount, currency));

/** A link to a payment's detail page. */
export const paymentLink = (id: string): string => `<a href="/payments/${encodeURIComponent(id)}">${escapeHtml(id)}</a>`;

export const statusBadge = (status: string): string => `<span class="pay-status pay-status-${escapeHtml(status)}">${escapeHtml(status.replace(/_/g, ' '))}</span>`;

const environmentName = (frame: Frame) => (frame.environment === 'sandbox' ? 'sandbox' : 'live');

/** The method and counterparty of a payment as its API object shows them (masked). */
export function counterparty(view: ApiObject): string {
  switch (view.object) {
    case 'charge': {
      const customer = view.customer as { masked: string; name: string | null };
      return `${escapeHtml(String(view.channel).replace(/_/g, ' '))}<br><span class="masked">${escapeHtml(customer.masked)}</span>${customer.name ? ` ${escapeHtml(customer.name)}` : ''}`;
    }
    case 'payout': {
      const recipient = view.recipient as { masked: string; name: string };
      return `${escapeHtml(String(view.channel).replace(/_/g, ' '))}<br><span class="masked">${escapeHtml(recipient.masked)}</span> ${escapeHtml(recipient.name)}`;
    }
    case 'refund':
      return `refund of ${paymentLink(String(view.charge))}`;
    case 'dispute':
      return `${escapeHtml(String(view.reason).replace(/_/g, ' '))}, on ${paymentLink(String(view.charge))}`;
    case 'settlement': {
      const destination = view.destination as { bank_code: string; account_masked: string };
      return `bank ${escapeHtml(destination.bank_code)}<br><span class="masked">${escapeHtml(destination.account_masked)}</span>`;
    }
    default:
      return '';
  }
}

/** Rows of payments (the list and a charge's refunds and disputes). */
export function paymentsTable(id: string, caption: string, rows: Payment[]): string {
  return `<table id="${id}" class="payments-table"><caption>${escapeHtml(caption)}</caption>
<thead><tr><th scope="col">ID</th><th scope="col" class="num">Amount</th><th scope="col">Currency</th><th scope="col">Status</th><th scope="col">Method / counterparty</th><th scope="col">Created</th></tr></thead>
<tbody>
${rows
  .map(
    ({ view }) =>
      `<tr><td>${paymentLink(view.id)}</td><td class="num">${money(view.amount, view.currency)}</td><td>${escapeHtml(view.currency)}</td><td>${statusBadge(view.status)}</td><td>${counterparty(view)}</td><td>${when(view.created_at)}</td></tr>`,
  )
  .join('\n')}
</tbody></table>`;
}

function tabs(filters: PaymentFilters): string {
  return `<nav aria-label="Payment types" class="pay-tabs" id="payment-tabs">${PAYMENT_TABS.map(
    (t) => `<a href="/payments?type=${t}" id="tab-${t}"${t === filters.tab ? ' aria-current="page"' : ''}>${TABS[t].label}</a>`,
  ).join('')}</nav>`;
}

function options(values: readonly string[], selected: string | undefined, any: string): string {
  return [`<option value="">${escapeHtml(any)}</option>`, ...values.map((v) => `<option value="${escapeHtml(v)}"${v === selected ? ' selected' : ''}>${escapeHtml(v.replace(/_/g, ' '))}</option>`)].join('');
}

/** The GET form of the list's filters: the API list's own (status, created, channel, reference, charge). */
function filterForm(filters: PaymentFilters): string {
  const spec = TABS[filters.tab];
  const field = (label: string, control: string) => `<div class="pay-field">${label}${control}</div>`;
  const fields = [
    field('<label for="f-status">Status</label>', `<select id="f-status" name="status">${options(spec.statuses, filters.status, 'Any status')}</select>`),
    spec.channels ? field('<label for="f-channel">Channel</label>', `<select id="f-channel" name="channel">${options(spec.channels, filters.channel, 'Any channel')}</select>`) : '',
    spec.referenceColumn
      ? field('<label for="f-reference">Your reference</label>', `<input type="text" id="f-reference" name="reference" maxlength="100" value="${escapeHtml(filters.reference ?? '')}">`)
      : '',
    spec.chargeColumn
      ? field('<label for="f-charge">Charge ID</label>', `<input type="text" id="f-charge" name="charge" maxlength="28" placeholder="txn_…" value="${escapeHtml(filters.charge ?? '')}">`)
      : '',
    field('<label for="f-created-from">Created from (UTC)</label>', `<input type="date" id="f-created-from" name="created_from" value="${escapeHtml(filters.createdFrom ?? '')}">`),
    field('<label for="f-created-to">Created to (UTC)</label>', `<input type="date" id="f-created-to" name="created_to" value="${escapeHtml(filters.createdTo ?? '')}">`),
    field(
      '<label for="f-limit">Per page</label>',
      `<select id="f-limit" name="limit">${[...new Set([...PAGE_SIZES, filters.limit])]
        .sort((a, b) => a - b)
        .map((n) => `<option value="${n}"${n === filters.limit ? ' selected' : ''}>${n}</option>`)
        .join('')}</select>`,
    ),
  ];
  return `<form method="get" action="/payments" id="filters" class="pay-filters" aria-label="Filter ${escapeHtml(spec.label.toLowerCase())}">
<input type="hidden" name="type" value="${filters.tab}">
${fields.filter(Boolean).join('\n')}
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
export function paymentsPage(frame: Frame, filters: PaymentFilters, rows: Payment[], nextCursor: string | null): string {
  const spec = TABS[filters.tab];
  const label = spec.label.toLowerCase();
  const ignored = filters.ignored.length
    ? `<p class="error" role="alert" id="ignored-filters">Not applied (not a value this list accepts): ${filters.ignored.map((f) => escapeHtml(FIELD_NAMES[f] ?? f)).join(', ')}.</p>\n`
    : '';
  const filtered = !!(filters.status || filters.channel || filters.reference || filters.charge || filters.createdFrom || filters.createdTo);
  const table = rows.length
    ? paymentsTable('payments', `${spec.label} (${environmentName(frame)}), newest first${filters.cursor ? ', older page' : ''}`, rows)
    : `<p id="no-payments">${filtered ? `No ${label} match these filters.` : filters.cursor ? `No older ${label}.` : `No ${label} in ${environmentName(frame)} yet.`}</p>`;
  const paging = [
    filters.cursor ? `<a href="/payments?${escapeHtml(filterQuery(filters))}" id="newest">Newest</a>` : '',
    nextCursor ? `<a href="/payments?${escapeHtml(filterQuery(filters, nextCursor))}" id="older" rel="next">Older</a>` : '',
  ].filter(Boolean);
  return portalPage(
    `Payments: ${spec.label}`,
    `<h1>Payments (${environmentName(frame)})</h1>
${tabs(filters)}
<h2>${spec.label}</h2>
${ignored}${filterForm(filters)}
${table}
${paging.length ? `<nav aria-label="Pages" class="pay-paging">${paging.join(' ')}</nav>` : ''}`,
    frame,
    'payments',
  );
}
