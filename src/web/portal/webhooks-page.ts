import { EVENT_TYPES } from '../../domain/event-types';
import { DEFAULT_SIGNATURE_SCHEME, NOTHING_WAITING, SIGNATURE_SCHEMES, type EndpointWaiting, type SignatureScheme, type WebhookEndpointRecord } from '../../domain/webhook-endpoint';
import { DEFAULT_DELIVERY_ORDER, DELIVERY_ORDERS, type DeliveryOrder } from '../../domain/webhook-fifo';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { urlHtml } from '../html-url';
import { guardFields, portalPage, type Frame } from './layout';
import { frameCan } from './permission-refusal';
import { when } from './time-html';

/** What the register form held, shown again after a refusal (never a secret). */
export interface RegisterForm {
  url: string;
  description: string;
  events: string[];
  /** The `signature_scheme` chosen (issue 49); a value the API refuses comes back as refused. */
  signatureScheme: string;
  /** The `delivery_order` chosen (issue 49, FIFO); a value the API refuses comes back as refused. */
  deliveryOrder: string;
}

const EMPTY_FORM: RegisterForm = { url: '', description: '', events: [], signatureScheme: DEFAULT_SIGNATURE_SCHEME, deliveryOrder: DEFAULT_DELIVERY_ORDER };

/** How the portal names each signature scheme. */
export const SCHEME_LABEL: Record<SignatureScheme, string> = {
  service_v1: 'Service signature (X-Service-Signature, hex HMAC-SHA256)',
  standard_webhooks: 'Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)',
};

/** How the portal names each delivery order (issue 49). */
export const ORDER_LABEL: Record<DeliveryOrder, string> = {
  unordered: 'Unordered: events are sent as they come, several at once, in no promised order',
  fifo: 'FIFO: one event at a time, in sequence order; a failing event holds the ones behind it',
};

export const envName = (frame: Frame): string => (frame.environment === 'sandbox' ? 'sandbox' : 'live');

/** The page's one message: an error (alert) or a notice (status), in `#message`. */
export function messageOf(message: string | null, status: 'error' | 'notice'): HtmlSafeString {
  return message ? html`<p class="${status}" role="${status === 'error' ? 'alert' : 'status'}" id="message">${message}</p>\n` : html``;
}

export const eventsText = (events: readonly string[]): HtmlSafeString => (events.length ? join([...events], html`<br>`) : html`all events`);

export const statusText = (status: string): HtmlSafeString => html`<span class="wh-status wh-status-${status}">${status}</span>`;

/**
 * The endpoint's health as its record keeps it: the failure streak, the last failure, an automatic
 * disable; and for a FIFO endpoint (or one whose queue still drains), how many events wait in its
 * queue and since when (the API's `health.waiting_events`, `waiting_since`).
 */
export function healthText(e: WebhookEndpointRecord, waiting: EndpointWaiting = NOTHING_WAITING): HtmlSafeString {
  const parts: HtmlSafeString[] = [];
  if (e.consecutiveFailures === 0) parts.push(html`<span class="wh-healthy">Healthy: no failure since the last success</span>`);
  else {
    parts.push(html`<span class="wh-failing">${e.consecutiveFailures} failed attempt${e.consecutiveFailures === 1 ? '' : 's'} in a row</span>`);
  }
  if (e.lastFailureAt) parts.push(html`Last failure ${when(e.lastFailureAt)}${e.lastFailureReason ? `: ${e.lastFailureReason}` : ''}`);
  if (e.autoDisabledAt) parts.push(html`Disabled automatically ${when(e.autoDisabledAt)} after repeated failures`);
  if (waiting.count > 0) {
    parts.push(html`<span class="wh-waiting">${waiting.count} event${waiting.count === 1 ? '' : 's'} waiting in the FIFO queue since ${when(waiting.since)}</span>`);
  } else if (e.deliveryOrder === 'fifo') parts.push(html`<span class="wh-waiting">Nothing waiting in the FIFO queue</span>`);
  return join(parts, html`<br>`);
}

function endpointRow(e: WebhookEndpointRecord, waiting: EndpointWaiting): HtmlSafeString {
  return html`<tr id="${e.id}">
<td><a href="/webhooks/${e.id}" class="wh-url">${urlHtml(e.url)}</a><br><small>${e.id}</small></td>
<td>${e.description ? e.description : '—'}</td>
<td>${eventsText(e.subscribedEvents)}</td>
<td>${statusText(e.status)}</td>
<td>${healthText(e, waiting)}</td>
</tr>`;
}

/** Webhooks: the environment's endpoints (with their FIFO queues' waiting counts) and the register form (`form` refilled after a refusal). */
export function endpointsPage(
  frame: Frame,
  endpoints: WebhookEndpointRecord[],
  options: { form?: RegisterForm; message?: string | null; status?: 'error' | 'notice'; waiting?: ReadonlyMap<string, EndpointWaiting> } = {},
): HtmlSafeString {
  const form = options.form ?? EMPTY_FORM;
  const refused = options.status !== 'notice' && Boolean(options.message);
  const rows = endpoints.length
    ? html`<table id="endpoints"><caption class="visually-hidden">Webhook endpoints (${envName(frame)})</caption>
<thead><tr><th scope="col">Endpoint</th><th scope="col">Description</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Health</th></tr></thead>
<tbody>
${join(
  endpoints.map((e) => endpointRow(e, options.waiting?.get(e.id) ?? NOTHING_WAITING)),
  '\n',
)}
</tbody></table>`
    : html`<p id="no-endpoints">No webhook endpoints in ${envName(frame)} yet. Register one below to receive events.</p>`;
  return portalPage(
    'Webhooks',
    html`<h1>Webhooks (${envName(frame)})</h1>
${messageOf(options.message ?? null, options.status ?? 'error')}<p>Every event of this environment is sent, signed, to each active endpoint that subscribes to its type. Open an endpoint for its deliveries, to rotate its signing secret or to disable it.</p>
${rows}
${frameCan(frame, 'manage_webhooks') ? registerForm(frame, form, refused) : html`<p class="wh-hint" id="read-only">Your role (${frame.role}) sees webhooks read only: a developer, an admin or an owner changes them.</p>`}`,
    frame,
  );
}

/** The register form (only for the roles that manage webhooks). */
function registerForm(frame: Frame, form: RegisterForm, refused: boolean): HtmlSafeString {
  return html`<h2 id="register-heading">Register an endpoint</h2>
<form id="register-endpoint" method="post" action="/webhooks" aria-labelledby="register-heading">
${guardFields(frame)}
<label for="endpoint-url">Endpoint URL</label>
<input name="url" id="endpoint-url" type="url" required maxlength="2048" value="${urlHtml(form.url)}" placeholder="https://example.com/webhooks" aria-describedby="endpoint-url-hint${refused ? ' message' : ''}">
<p class="wh-hint" id="endpoint-url-hint">${frame.environment === 'live' ? 'An https URL on a public host.' : 'An https URL on a public host (the sandbox may be configured to allow http and local hosts too).'}</p>
<label for="endpoint-description">Description (optional)</label>
<input name="description" id="endpoint-description" type="text" maxlength="500" value="${form.description}">
<fieldset><legend>Events to send (none ticked: all events)</legend>
${join(
  EVENT_TYPES.map((t) => html`<label class="check wh-event"><input type="checkbox" name="event" value="${t.type}"${form.events.includes(t.type) ? html` checked` : ''}> ${t.type}</label>`),
  '\n',
)}
</fieldset>
<fieldset><legend>Signature scheme</legend>
${join(
  SIGNATURE_SCHEMES.map((scheme) => html`<label class="check"><input type="radio" name="signature_scheme" value="${scheme}" id="scheme-${scheme}"${form.signatureScheme === scheme ? html` checked` : ''}> ${SCHEME_LABEL[scheme]}</label>`),
  '\n',
)}
<p class="wh-hint">Standard Webhooks: the libraries of standardwebhooks.com verify each delivery with the signing secret as it is.</p>
</fieldset>
<fieldset><legend>Delivery order</legend>
${join(
  DELIVERY_ORDERS.map((order) => html`<label class="check"><input type="radio" name="delivery_order" value="${order}" id="order-${order}"${form.deliveryOrder === order ? html` checked` : ''}> ${ORDER_LABEL[order]}</label>`),
  '\n',
)}
<p class="wh-hint">FIFO: the next event is sent only once the one before it was answered with a 2xx or skipped; a failing event is retried until it succeeds or you skip it on the endpoint's page.</p>
</fieldset>
<button type="submit" id="create-endpoint">Register endpoint</button>
</form>`;
}

/** A new signing secret (registered or rotated), this once: it is stored sealed and never shown again. */
export function endpointSecretPage(frame: Frame, what: 'created' | 'rotated', endpoint: WebhookEndpointRecord, secret: string): HtmlSafeString {
  const overlap =
    what === 'rotated' && endpoint.previousSecretExpiresAt
      ? html`<p id="previous-secret">Deliveries carry a second signature, made with the previous secret (and one for each secret rotated out within the last 24 hours), until ${when(endpoint.previousSecretExpiresAt)}: update your receiver before then.</p>`
      : '';
  return portalPage(
    what === 'created' ? 'Endpoint registered' : 'New signing secret',
    html`<h1>${what === 'created' ? 'Endpoint registered' : 'New signing secret'}</h1>
<div class="notice" role="status"><p>Copy this signing secret now. <strong>It is shown only once</strong>: it is stored sealed, and no page will show it again. Your receiver checks each delivery's ${endpoint.signatureScheme === 'standard_webhooks' ? 'webhook-signature (Standard Webhooks)' : 'X-Service-Signature'} with it.</p>
<label for="secret">Signing secret of ${endpoint.id}</label>
<output id="secret" class="secret">${secret}</output></div>
${overlap}<p>Endpoint: <span class="wh-url">${urlHtml(endpoint.url)}</span> (${eventsText(endpoint.subscribedEvents)})</p>
<p><a href="/webhooks/${endpoint.id}" id="endpoint-link">Done: open the endpoint</a> · <a href="/webhooks">All webhook endpoints</a></p>`,
    frame,
  );
}
