import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { EVENT_TYPES } from '../../domain/event-types';
import { urlHtml } from '../html-url';
import { when } from './time-html';
import { portalPage, type Frame } from './layout';

/** What the events table shows of a stored event body (the API's JSON, parsed only to show its envelope). */
export interface EventRow {
  id: string;
  sequence: number;
  type: string;
  resourceType: string;
  resourceId: string;
  transactionId?: string;
  createdAt: string;
}

export function eventRowOf(body: string): EventRow {
  const e = JSON.parse(body) as { id: string; sequence: number; type: string; resource_type: string; resource_id: string; transaction_id?: string; created_at: string };
  return {
    id: e.id,
    sequence: e.sequence,
    type: e.type,
    resourceType: e.resource_type,
    resourceId: e.resource_id,
    ...(e.transaction_id ? { transactionId: e.transaction_id } : {}),
    createdAt: e.created_at,
  };
}

/**
 * Stored JSON text laid out with two-space indents, without parsing it: every literal (a number past
 * 2^53 included) stays exactly as the API wrote it.
 */
export function indentJson(text: string): string {
  let out = '';
  let depth = 0;
  let inString = false;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      if (text[i + 1] === close) {
        out += c + close;
        i++;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') out += c + newline();
    else if (c === ':') out += ': ';
    else if (!/\s/.test(c)) out += c;
  }
  return out;
}

/** The object an event is about; a payment's (a charge, or a refund's or dispute's charge) links to its page. */
function objectCell(e: EventRow): HtmlSafeString {
  const id = e.resourceId;
  const kind = e.resourceType;
  if (e.resourceType === 'transaction') return html`${kind} <a href="/payments/${encodeURIComponent(e.resourceId)}">${id}</a>`;
  const payment = e.transactionId ? html`<br><small>payment <a href="/payments/${encodeURIComponent(e.transactionId)}">${e.transactionId}</a></small>` : '';
  return html`${kind} <code>${id}</code>${payment}`;
}

export interface EventsView {
  /** The first sequence asked for (the walk starts after `from - 1`). */
  from: number;
  /** Only events of these types; empty: every type. */
  types: string[];
  rows: EventRow[];
  hasMore: boolean;
  /** Where the newest page starts (null when the log is empty). */
  latestFrom: number | null;
  error?: string;
}

/** `/events?from=…&type=…` (each type repeated, as the form sends it): a page of the walk, the filter kept. */
export function eventsHref(from: number, types: readonly string[]): HtmlSafeString {
  const query = new URLSearchParams({ from: String(from) });
  for (const type of types) query.append('type', type);
  return urlHtml(`/events?${query.toString()}`);
}

/** The filter: where to start and which types (none ticked: every type), sent as GET /events?from=&type=&type=. */
function filterForm(view: EventsView): HtmlSafeString {
  return html`<form method="get" action="/events" class="inline-filter" id="events-filter">
<label for="from-sequence">Start at sequence</label>
<input type="number" inputmode="numeric" min="1" step="1" name="from" id="from-sequence" value="${view.from}">
<fieldset id="event-types"><legend>Event types (none ticked: every type)</legend>
${join(
  EVENT_TYPES.map((t) => html`<label class="check ev-type"><input type="checkbox" name="type" value="${t.type}"${view.types.includes(t.type) ? html` checked` : ''}> ${t.type}</label>`),
  '\n',
)}
</fieldset>
<button type="submit" class="secondary">Show events</button>
</form>`;
}

/**
 * Events: the environment's event log walked by sequence, oldest first, as GET
 * /v1/events?after_sequence= walks it; with types chosen, as GET /v1/events?type= filters it (the
 * sequences shown then have gaps: the other types). Every link of the walk keeps the types.
 */
export function eventsPage(frame: Frame, view: EventsView): HtmlSafeString {
  const env = frame.environment === 'sandbox' ? 'sandbox' : 'live';
  const note = view.error ? html`<p class="error" role="alert" id="message">${view.error}</p>\n` : '';
  const last = view.rows[view.rows.length - 1];
  const only = view.types.length ? html`: ${view.types.join(', ')} only` : '';
  const table = view.rows.length
    ? html`<table id="events"><caption>Events from sequence ${view.from}, oldest first${only}</caption>
<thead><tr><th scope="col">Sequence</th><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Object</th><th scope="col">Created</th></tr></thead>
<tbody>
${join(
  view.rows.map(
    (e) =>
      html`<tr data-sequence="${e.sequence}"><td>${e.sequence}</td><td><a href="/events/${encodeURIComponent(e.id)}">${e.id}</a></td><td>${e.type}</td><td>${objectCell(e)}</td><td>${when(e.createdAt)}</td></tr>`,
  ),
  '\n',
)}
</tbody></table>`
    : html`<p id="no-events">No events${view.types.length ? ' of the chosen types' : ''} from sequence ${view.from} in this environment${view.from > 1 ? ' yet' : ''}.</p>`;
  const next =
    last && view.hasMore
      ? html`<a href="${eventsHref(last.sequence + 1, view.types)}" id="next" rel="next">Next: events after sequence ${last.sequence}</a>`
      : html`<span id="end-of-log">${last ? `No events after sequence ${last.sequence} yet.` : ''} <a href="${eventsHref(last ? last.sequence + 1 : view.from, view.types)}" id="check-again">Check for newer events</a></span>`;
  const latest = view.latestFrom !== null ? html` · <a href="${eventsHref(view.latestFrom, view.types)}" id="latest">Newest events</a>` : '';
  const everyType = view.types.length ? html` · <a href="${eventsHref(view.from, [])}" id="every-type">Every type</a>` : '';
  return portalPage(
    'Events',
    html`<h1>Events (${env})</h1>
${note}<p>Every state change of your payments in this environment, numbered by sequence: the numbers have no gaps and follow the order the changes were committed in, so walking them in order misses nothing (as <code>GET /v1/events?after_sequence=</code> does). Choose an event to see its JSON, as the API and webhooks send it. Tick event types to see only those (as <code>GET /v1/events?type=</code> does): the sequences shown then skip the other types.</p>
${filterForm(view)}
${table}
<p class="pager"><a href="${eventsHref(1, view.types)}" id="first">First events</a>${latest}${everyType} · ${next}</p>`,
    frame,
  );
}

/** One event: its envelope and its JSON exactly as GET /v1/events answers it. */
export function eventPage(frame: Frame, e: EventRow, body: string): HtmlSafeString {
  return portalPage(
    `Event ${e.id}`,
    html`<h1>Event <code>${e.id}</code></h1>
<dl class="facts">
<dt>Sequence</dt><dd id="event-sequence">${e.sequence}</dd>
<dt>Type</dt><dd id="event-type">${e.type}</dd>
<dt>Object</dt><dd>${objectCell(e)}</dd>
<dt>Created</dt><dd>${when(e.createdAt)}</dd>
</dl>
<h2 id="json-heading">JSON</h2>
<pre id="event-json" class="json" tabindex="0" aria-labelledby="json-heading">${indentJson(body)}</pre>
<p><a href="/events?from=${e.sequence}" id="back-to-events">Back to the events from sequence ${e.sequence}</a></p>`,
    frame,
  );
}
