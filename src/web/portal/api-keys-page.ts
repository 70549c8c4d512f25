import { ALL_SCOPES } from '../../domain/scopes';
import type { ListedKey } from '../../persistence/merchants/api-key-store';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { guardFields, portalPage, type Frame } from './layout';
import { frameCan } from './permission-refusal';
import { when } from './time-html';

/** The roll overlaps offered (the old key keeps working this long; at most 7 days, as `keys roll`). */
export const ROLL_OVERLAPS: Record<string, { label: string; ms: number }> = {
  '0': { label: 'end it now', ms: 0 },
  '1h': { label: '1 hour', ms: 3600_000 },
  '24h': { label: '24 hours', ms: 24 * 3600_000 },
  '7d': { label: '7 days', ms: 7 * 24 * 3600_000 },
};


function keyRow(key: ListedKey, frame: Frame): HtmlSafeString {
  const open = key.status === 'active';
  const revoke = html`<form method="post" action="/developers/api-keys/${key.id}/revoke">${guardFields(frame)}<button type="submit" class="danger" aria-label="Revoke ${key.prefix}…${key.last4}">Revoke</button></form>`;
  const actions = !frameCan(frame, 'manage_api_keys')
    ? ''
    : open
    ? html`<form method="post" action="/developers/api-keys/${key.id}/roll">${guardFields(frame)}<label class="check" for="overlap-${key.id}">Old key works for</label>
<select name="overlap" id="overlap-${key.id}">${Object.entries(ROLL_OVERLAPS).map(([v, o]) => html`<option value="${v}"${v === '24h' ? html` selected` : ''}>${o.label}</option>`)}</select>
<button type="submit" class="secondary">Roll</button></form>
${revoke}`
    : key.status === 'expiring'
      ? revoke
      : '';
  return html`<tr id="${key.id}">
<td><code>${key.prefix}…${key.last4}</code><br><small>${key.id}</small></td>
<td>${join(key.scopes, html`<br>`)}</td>
<td class="status">${key.status}</td>
<td>${when(key.created_at)}</td><td>${when(key.last_used_at)}</td><td>${when(key.expires_at)}</td>
<td>${actions}</td>
</tr>`;
}

/** Developers → API keys: the current environment's keys (never a secret) and the create form. */
export function apiKeysPage(frame: Frame, keys: ListedKey[], message: string | null = null, status: 'error' | 'notice' = 'error'): HtmlSafeString {
  const note = message ? html`<p class="${status}" role="${status === 'error' ? 'alert' : 'status'}" id="message">${message}</p>\n` : '';
  const rows = keys.length
    ? html`<table id="keys"><caption class="visually-hidden">${frame.environment === 'sandbox' ? 'Sandbox' : 'Live'} API keys</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
<tbody>
${join(keys.map((k) => keyRow(k, frame)), '\n')}
</tbody></table>`
    : html`<p id="no-keys">No keys in this environment yet.</p>`;
  return portalPage(
    'API keys',
    html`<h1>Developers → API keys (${frame.environment === 'sandbox' ? 'sandbox' : 'live'})</h1>
${note}<p>A key's secret is shown once, when it is created or rolled. Here you see only its start and last four characters.</p>
${rows}
${frameCan(frame, 'manage_api_keys') ? createForm(frame) : html`<p id="read-only">Your role (${frame.role}) sees the keys read only: a developer, an admin or an owner creates, rolls and revokes sandbox keys.</p>`}`,
    frame,
  );
}

/** The create form (only for the roles that manage this environment's keys). */
function createForm(frame: Frame): HtmlSafeString {
  return html`<h2>Create a key</h2>
<form method="post" action="/developers/api-keys">
${guardFields(frame)}
<fieldset><legend>Scopes (at least one)</legend>
${join(ALL_SCOPES.map((s) => html`<label class="check"><input type="checkbox" name="scope" value="${s}"> ${s}</label>`), '\n')}
</fieldset>
<button type="submit" id="create-key">Create key</button>
</form>`;
}

/** The result of a create or a roll: the new secret, this once (the answer is never cached or logged). */
export function newSecretPage(frame: Frame, what: 'created' | 'rolled', key: { id: string; secret: string; scopes: string[] }, previousEndsAt?: string): HtmlSafeString {
  const rolled = what === 'rolled' && previousEndsAt ? html`<p>The old key keeps working until ${when(previousEndsAt)}.</p>` : '';
  return portalPage(
    'Your new API key',
    html`<h1>Your new API key</h1>
<div class="notice" role="status"><p>Copy this secret now. <strong>It is shown only once</strong>: it is not stored, and this page will not show it again.</p>
<label for="secret">Secret of ${key.id}</label>
<output id="secret" class="secret">${key.secret}</output></div>
${rolled}<p>Scopes: ${join(key.scopes, ', ')}</p>
<p><a href="/developers/api-keys" id="done">Done: back to API keys</a></p>`,
    frame,
  );
}
