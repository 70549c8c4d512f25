import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { urlHtml } from '../html-url';
import { page } from './layout';

/**
 * The request console (`/docs/console`): a form read by our own script (/docs/assets/console.js),
 * which sends to the sandbox API only. No field has a `name`, so even a submit without the script
 * sends nothing to this server; the key field is a password field the browser is asked not to fill
 * or remember.
 */
/** Requests the console offers to fill in (method, path, body): each works with a new sandbox key. */
export const CONSOLE_EXAMPLES: Array<{ label: string; method: string; path: string; body?: unknown }> = [
  { label: 'Your balances', method: 'GET', path: '/v1/balances' },
  {
    label: 'Create a mobile-money charge',
    method: 'POST',
    path: '/v1/charges',
    body: {
      amount: 15000,
      currency: 'GHS',
      channel: 'mobile_money',
      momo_network_id: '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01',
      customer: { identifier: '233241234567', name: 'Ama Mensah' },
      reference: 'order-1',
      metadata: { sandbox_outcome: 'succeed' },
    },
  },
  { label: 'The latest charges', method: 'GET', path: '/v1/charges?limit=5' },
  { label: 'Walk the event log from the start', method: 'GET', path: '/v1/events?after_sequence=0&limit=20' },
  { label: 'Event types', method: 'GET', path: '/v1/event-types' },
  { label: 'Mobile-money networks', method: 'GET', path: '/v1/reference/momo-networks' },
];

export function consolePage(sandboxApiUrl: string): HtmlSafeString {
  const api = urlHtml(new URL(sandboxApiUrl).origin);
  const examples = join(
    CONSOLE_EXAMPLES.map(
      (e) =>
        html`<option data-method="${e.method}" data-path="${urlHtml(e.path)}" data-body="${e.body === undefined ? '' : JSON.stringify(e.body, null, 2)}">${urlHtml(`${e.method} ${e.path.split('?')[0]}: ${e.label}`)}</option>`,
    ),
    '\n',
  );
  return page({
    path: '/docs/console',
    scripts: ['/docs/assets/console.js'],
    main: html`<h1>Request console</h1>
<p>Send a request to the <strong>sandbox</strong> API at <code>${api}</code>, and nowhere else. Use a sandbox key
(<code>svc_test_…</code>): a live key (<code>svc_live_…</code>) is refused here before anything is sent.
The key stays in this page's memory: it is not stored, not put in a cookie or the address, and it is
gone when you leave or reload the page.</p>
<form id="console" method="post" action="/docs/console" data-api-base="${api}" autocomplete="off" novalidate>
<div class="field">
<label for="console-key">API key (sandbox)</label>
<input id="console-key" type="password" autocomplete="off" spellcheck="false" autocapitalize="off" placeholder="svc_test_…" aria-describedby="console-key-help" required>
<p id="console-key-help" class="help">Kept in page memory only.</p>
</div>
<div class="field">
<label for="console-example">Example request</label>
<select id="console-example" aria-describedby="console-example-help">
<option value="">Choose an example…</option>
${examples}
</select>
<p id="console-example-help" class="help">Fills in the method, path and body below.</p>
</div>
<div class="row">
<div class="field">
<label for="console-method">Method</label>
<select id="console-method">
<option>GET</option>
<option>POST</option>
<option>PATCH</option>
<option>DELETE</option>
</select>
</div>
<div class="field grow">
<label for="console-path">Path</label>
<input id="console-path" type="text" value="/v1/balances" spellcheck="false" autocomplete="off" aria-describedby="console-path-help" required>
<p id="console-path-help" class="help">A path on the sandbox API, starting with <code>/v1/</code>.</p>
</div>
</div>
<div class="field">
<label for="console-body">Body (JSON, for POST and PATCH)</label>
<textarea id="console-body" rows="8" spellcheck="false"></textarea>
</div>
<div class="field">
<label for="console-idempotency">Idempotency-Key (POST; a new one is made when empty)</label>
<input id="console-idempotency" type="text" spellcheck="false" autocomplete="off">
</div>
<button type="submit">Send to the sandbox</button>
</form>
<p id="console-message" class="message" role="alert"></p>
<section aria-labelledby="console-answer-heading">
<h2 id="console-answer-heading">Answer</h2>
<p id="console-status" aria-live="polite">Nothing sent yet.</p>
<pre id="console-answer" tabindex="0" role="region" aria-labelledby="console-answer-heading"></pre>
</section>`,
  });
}
