import type { DeliveryRecord, DeliveryStatus } from '../../domain/webhook-delivery';
import { NOTHING_WAITING, type EndpointWaiting, type WebhookEndpointRecord } from '../../domain/webhook-endpoint';
import type { FifoWaiting } from '../../domain/webhook-fifo';
import { recoveryStatus, type RecoveryRecord } from '../../domain/webhook-recovery';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { EVENT_TYPES } from '../../domain/event-types';
import { urlHtml } from '../html-url';
import { guardFields, portalPage, type Frame } from './layout';
import { frameCan } from './permission-refusal';
import { when } from './time-html';
import { envName, eventsText, healthText, messageOf, ORDER_LABEL, SCHEME_LABEL, statusText } from './webhooks-page';

export const DELIVERY_STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'skipped'];

/** One page of an endpoint's deliveries, newest first, and where the older ones start. */
export interface DeliveriesView {
  deliveries: DeliveryRecord[];
  status: DeliveryStatus | null;
  /** Only deliveries of this event type (GET /v1/webhook-endpoints/{id}/deliveries?event_type=); null: every type. */
  eventType: string | null;
  /** The cursor of the next (older) page; null on the last page. */
  older: string | null;
  /** True when this is not the newest page. */
  paged: boolean;
}

const listQuery = (status: DeliveryStatus | null, eventType: string | null, cursor?: string): string => {
  const q = new URLSearchParams();
  if (status) q.set('status', status);
  if (eventType) q.set('event_type', eventType);
  if (cursor) q.set('cursor', cursor);
  const text = q.toString();
  return text ? `?${text}` : '';
};

function deliveryRow(d: DeliveryRecord): HtmlSafeString {
  return html`<tr id="${d.id}">
<td><a href="/webhooks/deliveries/${d.id}">${d.eventType}<span class="visually-hidden"> delivery ${d.id}</span></a>${d.replayOf ? html`<br><small>replay</small>` : ''}</td>
<td><code>${d.eventId}</code>${d.fifoSequence !== null ? html`<br><small>sequence ${d.fifoSequence}</small>` : ''}</td>
<td>${statusText(d.status)}${d.lastStatusCode !== null ? html`<br><small>last HTTP ${d.lastStatusCode}</small>` : ''}</td>
<td>${d.attemptCount}</td>
<td>${when(d.createdAt)}</td>
<td>${d.status === 'pending' ? when(d.nextAttemptAt) : '—'}</td>
</tr>`;
}

function deliveriesSection(endpoint: WebhookEndpointRecord, view: DeliveriesView): HtmlSafeString {
  const base = urlHtml(`/webhooks/${endpoint.id}`);
  const filter = html`<form method="get" action="${base}" id="delivery-filter" class="wh-filter">
<label for="status-filter">Show deliveries</label>
<select name="status" id="status-filter">
<option value=""${view.status === null ? html` selected` : ''}>all statuses</option>
${join(
  DELIVERY_STATUSES.map((s) => html`<option value="${s}"${view.status === s ? html` selected` : ''}>${s}</option>`),
  '\n',
)}
</select>
<label for="event-type-filter">of event type</label>
<select name="event_type" id="event-type-filter">
<option value=""${view.eventType === null ? html` selected` : ''}>every event type</option>
${join(
  EVENT_TYPES.map((t) => html`<option value="${t.type}"${view.eventType === t.type ? html` selected` : ''}>${t.type}</option>`),
  '\n',
)}
</select>
<button type="submit" class="secondary" id="filter-deliveries">Show</button>
</form>`;
  const table = view.deliveries.length
    ? html`<table id="deliveries"><caption class="visually-hidden">Deliveries to ${urlHtml(endpoint.url)}, newest first${view.status ? `, ${view.status} only` : ''}${view.eventType ? `, ${view.eventType} only` : ''}</caption>
<thead><tr><th scope="col">Event type</th><th scope="col">Event id</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Created</th><th scope="col">Next retry</th></tr></thead>
<tbody>
${join(view.deliveries.map(deliveryRow), '\n')}
</tbody></table>`
    : html`<p id="no-deliveries">${view.status ? `No ${view.status} deliveries` : view.eventType ? 'No deliveries' : 'No deliveries yet'}${view.eventType ? ` of ${view.eventType}` : ''}${view.paged ? ' on this page' : ''}.</p>`;
  const links = [
    view.paged ? html`<a href="${base}${urlHtml(listQuery(view.status, view.eventType))}" id="newest-deliveries">Newest</a>` : null,
    view.older ? html`<a href="${base}${urlHtml(listQuery(view.status, view.eventType, view.older))}" id="older-deliveries" rel="next">Older</a>` : null,
  ].filter((link) => link !== null);
  return html`<h2>Deliveries</h2>
${filter}
${table}
${links.length ? html`<p class="wh-pager">${join(links, ' ')}</p>` : ''}`;
}

/** The endpoint's max_per_second and max_in_flight as the page says them. */
function throttleText(e: WebhookEndpointRecord): string {
  const limits = [e.maxPerSecond !== null ? `at most ${e.maxPerSecond} a second` : null, e.maxInFlight !== null ? `at most ${e.maxInFlight} at once` : null].filter((x) => x !== null);
  return limits.length ? `${limits.join(', ')}; the rest wait their turn` : 'none';
}

function recoveryRow(r: RecoveryRecord): HtmlSafeString {
  const p = r.progress;
  const state = recoveryStatus(r);
  return html`<tr id="${r.id}">
<td><code>${r.id}</code></td>
<td>${when(r.since, true)}</td>
<td>${statusText(state)}${r.queuedAt === null ? html`<br><small>queuing</small>` : ''}</td>
<td>${p.queued} of ${p.total}</td>
<td>${p.succeeded}</td>
<td>${p.failed}</td>
<td>${p.skipped}</td>
<td>${p.pending}</td>
<td>${when(r.createdAt)}</td>
</tr>`;
}

/**
 * "Recover since" (issue 49): every event since a time whose last delivery failed or was skipped,
 * sent again as one recovery; its form (a UTC date and time) for who manages webhooks, and the
 * endpoint's latest recoveries with their live progress.
 */
function recoveriesSection(frame: Frame, endpoint: WebhookEndpointRecord, recoveries: RecoveryRecord[]): HtmlSafeString {
  const form = frameCan(frame, 'manage_webhooks')
    ? html`<form method="post" action="/webhooks/${endpoint.id}/recover" id="recover-endpoint" class="wh-filter">${guardFields(frame)}
<label for="recover-since">Recover since (UTC)</label>
<input type="datetime-local" name="since" id="recover-since" step="1" required aria-describedby="recover-hint">
<button type="submit" id="recover">Recover</button>
<p class="wh-hint" id="recover-hint">Sends again every event created since then whose last delivery failed or was skipped (pending and succeeded ones are not sent again). Not in the future, and within the event log's walkable window. The endpoint must be enabled.</p>
</form>`
    : '';
  const table = recoveries.length
    ? html`<table id="recoveries"><caption class="visually-hidden">Latest recoveries of this endpoint, newest first</caption>
<thead><tr><th scope="col">Recovery</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Queued</th><th scope="col">Succeeded</th><th scope="col">Failed</th><th scope="col">Skipped</th><th scope="col">Pending</th><th scope="col">Asked</th></tr></thead>
<tbody>
${join(recoveries.map(recoveryRow), '\n')}
</tbody></table>`
    : html`<p id="no-recoveries">No recoveries yet.</p>`;
  return html`<h2>Recoveries</h2>
${form}
${table}`;
}

/** An endpoint's FIFO queue as its page shows it (issue 49): how many wait and since when, and the first one. */
export interface FifoView {
  waiting: EndpointWaiting;
  /** The delivery at the head of the queue (the one the others wait behind); null when none waits. */
  head: FifoWaiting | null;
}

const NO_FIFO: FifoView = { waiting: NOTHING_WAITING, head: null };

/**
 * Ordered delivery (issue 49): the queue's head, and for who manages webhooks the "Skip event" form
 * (the held event's sequence: its delivery is recorded skipped, the events behind it go on). Shown for
 * a FIFO endpoint, and for one switched back to unordered while its queue still drains.
 */
function fifoSection(frame: Frame, endpoint: WebhookEndpointRecord, fifo: FifoView): HtmlSafeString {
  if (endpoint.deliveryOrder !== 'fifo' && fifo.waiting.count === 0) return html``;
  const head = fifo.head
    ? html`<p id="fifo-head">First in the queue: event ${fifo.head.sequence} (${fifo.head.eventType} <code>${fifo.head.eventId}</code>), <a href="/webhooks/deliveries/${fifo.head.deliveryId}">delivery ${fifo.head.deliveryId}</a>, ${fifo.head.attemptCount} attempt${fifo.head.attemptCount === 1 ? '' : 's'} so far.</p>`
    : html`<p id="fifo-empty">Nothing waits in the queue.</p>`;
  const form = frameCan(frame, 'manage_webhooks')
    ? html`<form method="post" action="/webhooks/${endpoint.id}/skip" id="skip-event" class="wh-filter">${guardFields(frame)}
<label for="skip-sequence">Skip event (sequence number)</label>
<input type="number" name="sequence" id="skip-sequence" min="1" step="1" required inputmode="numeric" aria-describedby="skip-hint">
<button type="submit" class="secondary" id="skip">Skip event</button>
<p class="wh-hint" id="skip-hint">The event's sequence (its X-Service-Sequence header, shown under a delivery's event id below). Its delivery is recorded as skipped and is not sent again; the events behind it go on at once. Replay it later from its delivery page if you still need it.</p>
</form>`
    : '';
  return html`<h2>FIFO queue</h2>
${head}
${form}`;
}

/** One endpoint: its settings, health (its FIFO queue's with it), the rotate, enable/disable, delivery order and delete actions, its FIFO queue, its recoveries and its deliveries. */
export function endpointPage(
  frame: Frame,
  endpoint: WebhookEndpointRecord,
  view: DeliveriesView,
  message: string | null = null,
  status: 'error' | 'notice' = 'error',
  recoveries: RecoveryRecord[] = [],
  fifo: FifoView = NO_FIFO,
): HtmlSafeString {
  const { id } = endpoint;
  const active = endpoint.status === 'active';
  const toggle = active
    ? html`<form method="post" action="/webhooks/${id}/status">${guardFields(frame)}<input type="hidden" name="status" value="disabled"><button type="submit" class="secondary" id="disable-endpoint">Disable endpoint</button></form>`
    : html`<form method="post" action="/webhooks/${id}/status">${guardFields(frame)}<input type="hidden" name="status" value="active"><button type="submit" id="enable-endpoint">Enable endpoint</button></form>`;
  const fifoNow = endpoint.deliveryOrder === 'fifo';
  const order = html`<form method="post" action="/webhooks/${id}/order">${guardFields(frame)}<input type="hidden" name="delivery_order" value="${fifoNow ? 'unordered' : 'fifo'}"><button type="submit" class="secondary" id="${fifoNow ? 'order-unordered' : 'order-fifo'}">${fifoNow ? 'Switch to unordered delivery' : 'Switch to FIFO delivery'}</button></form>`;
  return portalPage(
    'Webhook endpoint',
    html`<p><a href="/webhooks" id="all-endpoints">← All webhook endpoints</a></p>
<h1>Webhook endpoint (${envName(frame)})</h1>
${messageOf(message, status)}<dl class="wh-details" id="endpoint">
<dt>URL</dt><dd class="wh-url">${urlHtml(endpoint.url)}</dd>
<dt>Id</dt><dd><code>${id}</code></dd>
<dt>Description</dt><dd>${endpoint.description ? endpoint.description : '—'}</dd>
<dt>Events</dt><dd>${eventsText(endpoint.subscribedEvents)}</dd>
<dt>Status</dt><dd id="endpoint-status">${statusText(endpoint.status)}${active ? '' : ': nothing is sent; events are recorded as skipped deliveries, which you can replay once it is enabled again'}</dd>
<dt>Health</dt><dd id="endpoint-health">${healthText(endpoint, fifo.waiting)}</dd>
<dt>Timeout</dt><dd>${endpoint.timeoutSeconds} seconds</dd>
<dt>Throttle</dt><dd id="endpoint-throttle">${throttleText(endpoint)}</dd>
<dt>Signature scheme</dt><dd id="endpoint-scheme">${SCHEME_LABEL[endpoint.signatureScheme]}</dd>
<dt>Delivery order</dt><dd id="endpoint-order">${ORDER_LABEL[endpoint.deliveryOrder]}</dd>
<dt>Signing secret</dt><dd>Shown only once, when the endpoint is registered or its secret rotated.${endpoint.previousSecretExpiresAt ? html` The previous secret also signs until ${when(endpoint.previousSecretExpiresAt)}.` : ''}</dd>
<dt>Created</dt><dd>${when(endpoint.createdAt)}</dd>
</dl>
${frameCan(frame, 'manage_webhooks') ? html`<h2>Actions</h2>
<div class="wh-actions">
<form method="post" action="/webhooks/${id}/rotate">${guardFields(frame)}<button type="submit" class="secondary" id="rotate-secret">Rotate signing secret</button></form>
${toggle}
${order}
</div>
<p class="wh-hint" id="order-hint">A change of delivery order applies to the events created after it. Switched back to unordered, the events already waiting in the FIFO queue are still sent in order until it is empty.</p>
<form method="post" action="/webhooks/${id}/delete" class="wh-delete">${guardFields(frame)}
<label class="check"><input type="checkbox" name="confirm" value="yes" id="confirm-delete" required> Yes, delete this endpoint (nothing more is sent to it)</label>
<button type="submit" class="danger" id="delete-endpoint">Delete endpoint</button></form>` : html`<p class="wh-hint" id="read-only">Your role (${frame.role}) sees webhooks read only: a developer, an admin or an owner changes them.</p>`}
${fifoSection(frame, endpoint, fifo)}
${recoveriesSection(frame, endpoint, recoveries)}
${deliveriesSection(endpoint, view)}`,
    frame,
  );
}
