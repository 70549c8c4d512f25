import type { DeliveryAttemptRecord, DeliveryRecord } from '../../domain/webhook-delivery';
import type { SignatureScheme, WebhookEndpointRecord } from '../../domain/webhook-endpoint';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { urlHtml } from '../html-url';
import { guardFields, portalPage, type Frame } from './layout';
import { frameCan } from './permission-refusal';
import { when } from './time-html';
import { envName, messageOf, statusText } from './webhooks-page';

/**
 * What each attempt of the delivery sends, as the sender builds it (activities/webhooks.ts): the
 * endpoint's URL and the stored event bytes. Attempts record only their outcome, so the signature and
 * timestamp (made at send time) are not known afterwards; the secret never leaves the sealed store.
 */
export interface DeliveryRequest {
  url: string;
  body: string;
  sequence: number;
  /** The endpoint's signature scheme now (issue 49): which signature headers each attempt sends. */
  signatureScheme: SignatureScheme;
}

/** The signature headers as the page describes them: made at send time, so never shown. */
function signatureLines(d: DeliveryRecord, scheme: SignatureScheme): string[] {
  if (scheme === 'standard_webhooks') {
    return [
      `Webhook-Id: ${d.eventId}`,
      'Webhook-Timestamp: … (Unix seconds when signed; not kept)',
      'Webhook-Signature: v1,… (Standard Webhooks: base64 HMAC-SHA256 of id.timestamp.body; made when sent, not kept)',
    ];
  }
  return [
    'X-Service-Signature: v1=… (HMAC-SHA256 with the signing secret; made when sent, not kept)',
    'X-Service-Timestamp: … (Unix seconds when signed; not kept)',
  ];
}

export const REPLAYED_MESSAGE = 'Replay queued: this is the new delivery. It is sent with a fresh signature and its own attempts.';

function requestText(d: DeliveryRecord, request: DeliveryRequest, attempt: number): string {
  const headers = [
    `POST ${request.url}`,
    'Content-Type: application/json',
    'User-Agent: payment-engine-webhooks/1',
    ...signatureLines(d, request.signatureScheme),
    `X-Service-Event-Id: ${d.eventId}`,
    `X-Service-Event-Type: ${d.eventType}`,
    `X-Service-Delivery-Id: ${d.id}`,
    `X-Service-Sequence: ${request.sequence}`,
    `X-Service-Attempt: ${attempt}`,
  ];
  return `${headers.join('\n')}\n\n${request.body}`;
}

function responseText(a: DeliveryAttemptRecord): string {
  const head = a.statusCode !== null ? `HTTP ${a.statusCode}` : 'No HTTP response';
  const error = a.error ? `\n${a.error}` : '';
  const body = a.responseBody !== null && a.responseBody !== '' ? `\n\n${a.responseBody}` : '\n\n(empty body)';
  return `${head}${error}${a.statusCode !== null ? body : ''}`;
}

function attemptRow(d: DeliveryRecord, a: DeliveryAttemptRecord, request: DeliveryRequest | null): HtmlSafeString {
  return html`<tr id="attempt-${a.attempt}">
<th scope="row">${a.attempt}</th>
<td>${when(a.attemptedAt)}</td>
<td>${statusText(a.outcome)}</td>
<td>${a.statusCode !== null ? a.statusCode : '—'}</td>
<td>${a.durationMs} ms</td>
<td>${request ? html`<pre class="wh-pre wh-request">${requestText(d, request, a.attempt)}</pre>` : '—'}</td>
<td><pre class="wh-pre wh-response">${responseText(a)}</pre></td>
</tr>`;
}

/** One delivery: its state, its endpoint, every attempt with the request and response, and replay. */
export function deliveryPage(
  frame: Frame,
  d: DeliveryRecord,
  attempts: DeliveryAttemptRecord[],
  endpoint: WebhookEndpointRecord | null,
  request: DeliveryRequest | null,
  message: string | null = null,
  status: 'error' | 'notice' = 'error',
): HtmlSafeString {
  const { id } = d;
  const endpointCell = endpoint
    ? html`<a href="/webhooks/${endpoint.id}" id="delivery-endpoint">${urlHtml(endpoint.url)}</a> (${statusText(endpoint.status)})`
    : html`<code>${d.endpointId}</code> (deleted)`;
  const table = attempts.length
    ? html`<table id="attempts"><caption class="visually-hidden">Attempts of delivery ${id}, oldest first</caption>
<thead><tr><th scope="col">Attempt</th><th scope="col">Time</th><th scope="col">Outcome</th><th scope="col">HTTP status</th><th scope="col">Duration</th><th scope="col">Request</th><th scope="col">Response</th></tr></thead>
<tbody>
${join(attempts.map((a) => attemptRow(d, a, request)), '\n')}
</tbody></table>`
    : html`<p id="no-attempts">${d.status === 'skipped' ? 'Nothing was sent: the endpoint was disabled or deleted.' : 'No attempt yet.'}</p>`;
  return portalPage(
    'Webhook delivery',
    html`<p>${endpoint ? html`<a href="/webhooks/${endpoint.id}" id="back-to-endpoint">← Deliveries of this endpoint</a>` : html`<a href="/webhooks">← All webhook endpoints</a>`}</p>
<h1>Webhook delivery (${envName(frame)})</h1>
${messageOf(message, status)}<dl class="wh-details" id="delivery">
<dt>Id</dt><dd><code>${id}</code></dd>
<dt>Status</dt><dd id="delivery-status">${statusText(d.status)}</dd>
<dt>Event</dt><dd>${d.eventType} <code>${d.eventId}</code></dd>
<dt>Endpoint</dt><dd>${endpointCell}</dd>
<dt>Attempts</dt><dd>${d.attemptCount}${d.lastStatusCode !== null ? `, last HTTP ${d.lastStatusCode}` : ''}${d.lastError ? `: ${d.lastError}` : ''}</dd>
<dt>Created</dt><dd>${when(d.createdAt)}</dd>
<dt>${d.status === 'pending' ? 'Next attempt' : 'Completed'}</dt><dd>${when(d.status === 'pending' ? d.nextAttemptAt : d.completedAt)}</dd>
${d.replayOf ? html`<dt>Replay of</dt><dd><a href="/webhooks/deliveries/${d.replayOf}" id="replay-of">${d.replayOf}</a></dd>` : ''}
</dl>
${frameCan(frame, 'manage_webhooks') ? html`<form method="post" action="/webhooks/deliveries/${id}/replay" class="wh-replay">${guardFields(frame)}
<p>Replay sends the same event again to this endpoint as a new delivery (its own id and attempts, freshly signed).</p>
<button type="submit" id="replay">Replay delivery</button></form>` : ''}
<h2>Attempts</h2>
<p class="wh-hint">Each attempt is a POST of the stored event, byte for byte, with the headers below. The signature and timestamp are made when it is sent and not kept; the signing secret is never shown. The URL is the endpoint's current one.</p>
${table}`,
    frame,
  );
}
