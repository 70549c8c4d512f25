import type { RailAttempt } from '../../persistence/partner/rail-attempts-store';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { urlHtml } from '../html-url';
import { portalPage, type Frame } from './layout';
import { paymentKindOf, type Payment, type PaymentKind, type Related } from './payments-data';
import { counterparty, money, paymentLink, paymentsTable, statusBadge } from './payments-page';
import { when } from './time-html';
import { TIMELINE_LIMIT, type Timeline } from './payment-timeline';

const NOUN: Record<PaymentKind, string> = { charge: 'Charge', payout: 'Payout', refund: 'Refund', dispute: 'Dispute', settlement: 'Settlement' };
const TAB: Record<PaymentKind, string> = { charge: 'charges', payout: 'payouts', refund: 'refunds', dispute: 'disputes', settlement: 'settlements' };

/** Members of an API object that are amounts in minor units of its currency. */
const AMOUNTS = new Set(['amount', 'customer_amount', 'merchant_amount', 'amount_refunded', 'fee.platform', 'fee.tax', 'total_debit']);
/** Members shown elsewhere on the page (the heading, the metadata block). */
const SKIPPED = new Set(['object', 'metadata']);

const label = (path: string): string => {
  const text = path.replace(/[._]/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

const isTime = (path: string, value: unknown): value is string =>
  typeof value === 'string' && /(_at|_by|period_end)$/.test(path) && /^\d{4}-\d{2}-\d{2}T/.test(value);

/** One member's value, escaped: amounts with their currency, times, ids of payments linked. */
function valueHtml(path: string, value: unknown, currency: string): HtmlSafeString {
  if (value === null || value === undefined) return html`—`;
  if (AMOUNTS.has(path) && typeof value === 'number') return money(value, currency);
  if (isTime(path, value)) return when(value, true);
  if (path === 'charge' && typeof value === 'string') return paymentLink(value);
  if (path === 'status' && typeof value === 'string') return statusBadge(value);
  if (typeof value === 'boolean') return value ? html`yes` : html`no`;
  if (path === 'evidence.text' && typeof value === 'string') return html`<span class="pay-text">${value}</span>`;
  return html`${String(value)}`;
}

/** The API object's members, nested ones as `parent.member`, in the API's order. */
function fields(view: Record<string, unknown>, currency: string, prefix = ''): HtmlSafeString[] {
  const out: HtmlSafeString[] = [];
  for (const [key, value] of Object.entries(view)) {
    const path = prefix + key;
    if (SKIPPED.has(path)) continue;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) out.push(...fields(value as Record<string, unknown>, currency, `${path}.`));
    else out.push(html`<dt>${label(path)}</dt><dd id="field-${path.replace(/\./g, '-')}">${valueHtml(path, value, currency)}</dd>`);
  }
  return out;
}

function metadataBlock(metadataJson: string): HtmlSafeString {
  let pretty = metadataJson;
  try {
    pretty = JSON.stringify(JSON.parse(metadataJson), null, 2);
  } catch {
    // shown as stored
  }
  return pretty === '{}' ? html`<p id="metadata">No metadata.</p>` : html`<pre id="metadata" class="pay-json">${pretty}</pre>`;
}

/** Issue 45: the partner a live payment went through, named above its timeline (a sandbox one: the simulator). */
const RAIL_NAME: Record<string, string> = { momo: 'the mobile-money partner (MoMo)', aggregator: 'the aggregator (card, bank and mobile money)', sandbox: 'the sandbox simulator (no partner)' };

function railLine(view: Record<string, unknown>): HtmlSafeString {
  const rail = typeof view.rail === 'string' ? view.rail : null;
  if (!rail) return html``;
  return html`<p id="timeline-rail" data-rail="${rail}">Through ${RAIL_NAME[rail] ?? rail}.</p>\n`;
}

/** Issue 46: a live payment's attempts at its partners, when it failed over (one attempt: the rail line says it all). */
function attemptsBlock(attempts: readonly RailAttempt[]): HtmlSafeString {
  if (attempts.length < 2) return html``;
  const items = attempts.map((a) => {
    const said = a.outcome === 'current' ? 'the attempt it follows' : `${a.outcome === 'not_reached' ? 'never reached the partner' : 'refused'}: ${a.reason ?? ''}; then ${RAIL_NAME[a.nextPartner ?? ''] ?? a.nextPartner ?? ''}`;
    return html`<li data-attempt="${a.number}" data-partner="${a.partner}" data-outcome="${a.outcome}">Attempt ${a.number} through ${RAIL_NAME[a.partner] ?? a.partner} (reference <code>${a.reference}</code>, ${when(a.startedAt, true)}): ${said}</li>`;
  });
  return html`<ol id="attempts" class="pay-timeline" aria-label="Attempts at the partners">
${join(items, '\n')}
</ol>
`;
}

function timelineBlock(timeline: Timeline, view: Record<string, unknown>, attempts: readonly RailAttempt[] = []): HtmlSafeString {
  const items = timeline.entries.map(
    (e) =>
      html`<li id="${e.id}" data-sequence="${e.sequence}" data-type="${e.type}"><code class="pay-event">${e.type}</code> ${when(e.createdAt, true)} <span class="pay-seq">sequence ${e.sequence}</span></li>`,
  );
  const partial = timeline.complete
    ? ''
    : html`<p class="notice" id="timeline-partial">This payment has more events than shown here (the first ${TIMELINE_LIMIT}); the Events page lists every event.</p>\n`;
  return html`<h2 id="timeline-heading">Timeline</h2>
${railLine(view)}${attemptsBlock(attempts)}${partial}${items.length ? html`<ol id="timeline" class="pay-timeline" aria-labelledby="timeline-heading">\n${join(items, '\n')}\n</ol>` : html`<p id="timeline-empty">No events about it yet.</p>`}`;
}

function relatedBlock(payment: Payment, related: Related): HtmlSafeString {
  const parts: HtmlSafeString[] = [];
  if (related.charge) {
    parts.push(html`<h2>Charge</h2>\n${paymentsTable('related-charge', `The charge this ${payment.kind} is about`, [related.charge])}`);
  }
  if (related.refunds) {
    parts.push(
      html`<h2>Refunds</h2>\n${related.refunds.rows.length ? paymentsTable('related-refunds', 'Refunds of this charge, newest first', related.refunds.rows) : html`<p id="no-refunds">No refunds.</p>`}${
        related.refunds.more ? html`\n<p><a href="/payments?type=refunds&amp;charge=${encodeURIComponent(payment.view.id)}">All refunds of this charge</a></p>` : ''
      }`,
    );
  }
  if (related.disputes) {
    parts.push(
      html`<h2>Disputes</h2>\n${related.disputes.rows.length ? paymentsTable('related-disputes', 'Disputes of this charge, newest first', related.disputes.rows) : html`<p id="no-disputes">No disputes.</p>`}${
        related.disputes.more ? html`\n<p><a href="/payments?type=disputes&amp;charge=${encodeURIComponent(payment.view.id)}">All disputes of this charge</a></p>` : ''
      }`,
    );
  }
  if (related.entries) {
    const rows = related.entries.rows.map((e) => {
      const source = paymentKindOf(e.source) ? paymentLink(e.source) : e.source;
      return html`<tr><td><code>${e.transfer_id}</code></td><td>${e.kind.replace(/_/g, ' ')}</td><td>${source}</td><td class="num">${money(e.amount, payment.view.currency)}</td><td>${when(e.created_at)}</td></tr>`;
    });
    parts.push(
      html`<h2>Swept entries</h2>\n${
        rows.length
          ? html`<table id="related-entries"><caption>Ledger postings this settlement swept, newest first${related.entries.more ? ' (the first ones; GET /v1/settlements/{id}/entries lists all)' : ''}</caption>
<thead><tr><th scope="col">Transfer</th><th scope="col">Kind</th><th scope="col">Source</th><th scope="col" class="num">Amount</th><th scope="col">Created</th></tr></thead>
<tbody>
${join(rows, '\n')}
</tbody></table>`
          : html`<p id="no-entries">No entries.</p>`
      }`,
    );
  }
  return join(parts, '\n');
}

/**
 * The notice of a payment under review (an open reconciliation break or late money not settled yet):
 * only that it is, never the break's kind, amounts, the partner's status or the reasons.
 */
const UNDER_REVIEW = html`<div class="notice pay-review" id="under-review" role="status" aria-labelledby="under-review-heading">
<h2 id="under-review-heading">Under review</h2>
<p>Our team is checking this payment with the payment partner. Its status may change; you will get an event if it does.</p>
</div>
`;

/** GET /payments/:id: the object as the API shows it, its timeline, related objects, and its workflow; a notice while it is under review. */
export function paymentDetailPage(frame: Frame, payment: Payment, related: Related, timeline: Timeline, workflowUrl: string | null, underReview: boolean, attempts: readonly RailAttempt[] = []): HtmlSafeString {
  const { view } = payment;
  const noun = NOUN[payment.kind];
  const workflow = workflowUrl
    ? html`<p><a id="temporal-link" href="${urlHtml(workflowUrl)}" rel="noopener">Open its workflow in the Temporal UI</a> (workflow ID <code>${view.id}</code>)</p>`
    : '';
  return portalPage(
    `${noun} ${view.id}`,
    html`<p class="pay-back"><a href="/payments?type=${TAB[payment.kind]}" id="back">← All ${TAB[payment.kind]}</a></p>
<h1>${noun} <code id="payment-id">${view.id}</code></h1>
<p class="pay-summary"><span id="summary-amount">${money(view.amount, view.currency)}</span> ${statusBadge(view.status)} ${counterparty(view)}</p>
${underReview ? UNDER_REVIEW : ''}${workflow}
<h2>Details</h2>
<dl id="fields" class="pay-fields">
${join(fields(view, view.currency), '\n')}
</dl>
<h2>Metadata</h2>
${metadataBlock(payment.metadataJson)}
${timelineBlock(timeline, payment.view as unknown as Record<string, unknown>, attempts)}
${relatedBlock(payment, related)}`,
    frame,
    'payments',
  );
}
