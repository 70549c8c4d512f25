import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { htmlEscaped } from '../support/html-escaped';
import { PortalClient } from '../support/portal-client';
import { signedInUser, startPortalWeb, type PortalWeb } from '../support/portal-web';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

/**
 * The merchant portal's Webhooks pages over HTTP (src/web/portal/webhooks-*.ts): registering an
 * endpoint (its secret once), the deliveries of a real sandbox charge sent by the real worker to a
 * local receiver, a delivery's attempts, replay, rotate, enable/disable, each change audited as
 * portal:<email>; CSRF, other merchants' ids and the live environment change nothing and show nothing.
 */

let h: Harness;
let rx: TestReceiver;
let web: PortalWeb;
let url: string;

beforeAll(async () => {
  h = await startHarness({ webhookEnv: { WEBHOOK_SECRET_OVERLAP: '8s' } });
  rx = await startTestReceiver();
  web = await startPortalWeb(h);
  url = web.url;
});
afterAll(async () => {
  await rx?.close();
  await web?.close();
  await h?.close();
});
beforeEach(() => rx.respond(() => ({ status: 200, body: 'ok' })));

const sql = <T>(text: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(text, params);

async function signedIn(): Promise<{ m: TestMerchant; email: string; client: PortalClient }> {
  const m = await h.merchant();
  const { email, client } = await signedInUser(url, h.orm, m.id);
  return { m, email, client };
}

/** What a page's changing forms carry: its environment and CSRF token (layout.ts guardFields). */
async function formOf(client: PortalClient, path = '/webhooks'): Promise<{ environment: string; csrf: string }> {
  return PortalClient.formOf((await client.get(path)).text);
}

const secretOf = (text: string) => /<output id="secret" class="secret">([^<]+)<\/output>/.exec(text)?.[1];
const endpointIdOf = (text: string) => /href="\/webhooks\/(we_[0-9A-Za-z]+)" id="endpoint-link"/.exec(text)?.[1];

/** Registers an endpoint through the form; its id and the secret shown. */
async function register(client: PortalClient, m: TestMerchant, fields: Record<string, string | string[]> = {}): Promise<{ id: string; secret: string; text: string; requestId: string | null }> {
  const res = await client.post('/webhooks', { ...(await formOf(client)), url: `${rx.url}/${m.id}`, ...fields });
  expect(res.status).toBe(200);
  const id = endpointIdOf(res.text);
  const secret = secretOf(res.text);
  expect(id).toMatch(/^we_/);
  expect(secret).toMatch(/^whsec_/);
  return { id: id!, secret: secret!, text: res.text, requestId: res.headers.get('request-id') };
}

const auditOf = (subject: string) =>
  sql<{ action: string; operator: string; reason: string; request_id: string; environment: string; state_before: any; state_after: any }>(
    `select action, operator, reason, request_id, environment, state_before, state_after from operator_audit where payment_id = ? order by created_at`,
    [subject],
  );

const endpointCount = async (merchantId: string) => Number((await sql<{ n: string }>(`select count(*) as n from webhook_endpoints where merchant_id = ?`, [merchantId]))[0]!.n);
const deliveryCount = async (merchantId: string) => Number((await sql<{ n: string }>(`select count(*) as n from webhook_deliveries where merchant_id = ?`, [merchantId]))[0]!.n);
const auditCount = async (merchantId: string) => Number((await sql<{ n: string }>(`select count(*) as n from operator_audit where merchant_id = ?`, [merchantId]))[0]!.n);

async function charge(m: TestMerchant): Promise<string> {
  const res = await h.request('sandbox', 'POST', '/v1/charges', {
    key: m.testKey,
    body: chargeBody({ metadata: { sandbox_outcome: 'succeed' } }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  return res.json.id as string;
}

const toMerchant = (m: TestMerchant) => (ds: ReceivedDelivery[]) => ds.filter((d) => d.path === `/hook/${m.id}`);

/** Waits until the endpoint has `n` deliveries, none pending (read through the API, the merchant's view). */
async function settledDeliveries(m: TestMerchant, endpointId: string, n: number): Promise<Array<Record<string, any>>> {
  const until = Date.now() + 20_000;
  for (;;) {
    const res = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`, { key: m.testKey });
    const data = res.json.data as Array<Record<string, any>>;
    if (data.length >= n && data.every((d) => d.status !== 'pending')) return data;
    if (Date.now() > until) throw new Error(`deliveries of ${endpointId} not settled: ${JSON.stringify(data)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A registered endpoint with the deliveries of one succeeded sandbox charge (transaction.created and .succeeded), all delivered. */
async function endpointWithDeliveries() {
  const user = await signedIn();
  const ep = await register(user.client, user.m, { event: ['transaction.created', 'transaction.succeeded'] });
  rx.setSecrets([ep.secret]);
  const chargeId = await charge(user.m);
  const deliveries = await settledDeliveries(user.m, ep.id, 2);
  return { ...user, ep, chargeId, deliveries };
}

test('register through the form: the signing secret is shown once, the endpoint is listed (never its secret) and its create is audited as portal:<email>', async () => {
  const { m, email, client } = await signedIn();
  const empty = await client.get('/webhooks');
  expect(empty.status).toBe(200);
  expect(empty.text).toContain('id="no-endpoints"');
  expect(empty.text).toContain('<form id="register-endpoint" method="post" action="/webhooks"');
  expect(empty.text).toMatch(/<label for="endpoint-url">[^<]+<\/label>\s*<input name="url" id="endpoint-url" type="url"/);

  const ep = await register(client, m, { description: 'Orders <service>', event: ['transaction.succeeded', 'refund.succeeded'] });
  expect(ep.text).toContain('It is shown only once');
  expect(ep.text).toContain('id="test-mode"');

  // The API sees what the form registered.
  const api = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey });
  expect(api.json).toMatchObject({ url: `${rx.url}/${m.id}`, description: 'Orders <service>', subscribed_events: ['transaction.succeeded', 'refund.succeeded'], status: 'active' });

  const list = await client.get('/webhooks');
  expect(list.text).toContain('<table id="endpoints">');
  expect(list.text).toContain(`<a href="/webhooks/${ep.id}" class="wh-url">${rx.url}/${m.id}</a>`);
  expect(list.text).toContain('Orders &lt;service&gt;');
  expect(list.text).toContain('transaction.succeeded<br>refund.succeeded');
  expect(list.text).toContain('Healthy');
  expect(list.text).not.toContain('id="no-endpoints"');
  const page = await client.get(`/webhooks/${ep.id}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('id="rotate-secret"');
  expect(page.text).toContain('id="no-deliveries"');
  for (const text of [list.text, page.text]) {
    expect(text).not.toContain(ep.secret);
    expect(text).not.toContain('id="secret"');
  }

  expect(await auditOf(ep.id)).toEqual([
    expect.objectContaining({ action: 'webhook_endpoint.create', operator: `portal:${email}`, reason: 'portal: Webhooks', request_id: ep.requestId, environment: 'sandbox', state_before: null }),
  ]);
  expect(JSON.stringify(await auditOf(ep.id))).not.toContain(ep.secret);

  // No event ticked: every event.
  const all = await register(client, m, { url: `${rx.url}/${m.id}/all` });
  expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${all.id}`, { key: m.testKey })).json.subscribed_events).toEqual([]);
  expect((await client.get('/webhooks')).text).toContain('all events');
});

test('a refused URL or event type shows the service’s message on the page, keeps what was typed, and creates nothing', async () => {
  const { m, client } = await signedIn();
  const form = await formOf(client);
  const audited = await auditCount(m.id);
  const privateHost = await client.post('/webhooks', { ...form, url: 'http://10.1.2.3/hook', description: 'typed' });
  expect(privateHost.status).toBe(400);
  expect(privateHost.text).toMatch(/<p class="error" role="alert" id="message">The endpoint was not registered: [^<]+<\/p>/);
  expect(privateHost.text).toContain('value="http://10.1.2.3/hook"');
  expect(privateHost.text).toContain('value="typed"');
  const notUrl = await client.post('/webhooks', { ...form, url: 'not a url' });
  expect(notUrl.status).toBe(400);
  expect(notUrl.text).toContain('id="message"');
  const badEvent = await client.post('/webhooks', { ...form, url: `${rx.url}/${m.id}`, event: 'no.such_event' });
  expect(badEvent.status).toBe(400);
  expect(badEvent.text).toContain('id="message"');
  for (const res of [privateHost, notUrl, badEvent]) expect(res.text).not.toContain('id="secret"');
  expect(await endpointCount(m.id)).toBe(0);
  expect(await auditCount(m.id)).toBe(audited);
});

test('the register form offers the signature scheme: Standard Webhooks is stored, shown on the endpoint page and on the delivery page, and audited; a scheme not offered creates nothing', async () => {
  const { m, client } = await signedIn();
  const blank = await client.get('/webhooks');
  expect(blank.text).toMatch(/<input type="radio" name="signature_scheme" value="service_v1" id="scheme-service_v1" checked>/);
  expect(blank.text).toMatch(/<input type="radio" name="signature_scheme" value="standard_webhooks" id="scheme-standard_webhooks">/);
  const refused = await client.post('/webhooks', { ...(await formOf(client)), url: `${rx.url}/${m.id}`, signature_scheme: 'v2' });
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('id="message"');
  expect(await endpointCount(m.id)).toBe(0);

  const { id, text } = await register(client, m, { signature_scheme: 'standard_webhooks', event: 'transaction.created' });
  expect(text).toContain('webhook-signature (Standard Webhooks)');
  const page = await client.get(`/webhooks/${id}`);
  expect(page.text).toMatch(/<dd id="endpoint-scheme">Standard Webhooks \(webhook-id, webhook-timestamp, webhook-signature\)<\/dd>/);
  expect((await auditOf(id))[0]!.state_after.signature_scheme).toBe('standard_webhooks');

  const chargeId = await charge(m);
  const [received] = (await rx.waitFor((ds) => toMerchant(m)(ds).some((d) => JSON.parse(d.body).resource_id === chargeId), 20_000)).filter((d) => d.path === `/hook/${m.id}`);
  expect(received!.headers['webhook-signature']).toMatch(/^v1,/);
  const detail = await client.get(`/webhooks/deliveries/${received!.headers['x-service-delivery-id']}`);
  expect(detail.text).toContain(`Webhook-Id: ${received!.headers['webhook-id']}`);
  expect(detail.text).toContain('Webhook-Signature: v1,… (Standard Webhooks');
  expect(detail.text).not.toContain('X-Service-Signature');
});

test('a sandbox charge’s deliveries are listed on the endpoint page (filter, links) and a delivery page shows its attempts with request and response, never a secret', async () => {
  const { m, client, ep, chargeId, deliveries } = await endpointWithDeliveries();
  const page = await client.get(`/webhooks/${ep.id}`);
  expect(page.text).toContain('<table id="deliveries">');
  for (const d of deliveries) {
    expect(page.text).toMatch(new RegExp(`<a href="/webhooks/deliveries/${d.id}">${d.event_type.replace('.', '\\.')}`));
    expect(page.text).toContain(d.event_id);
  }
  // Newest first, as the API lists them: transaction.succeeded above transaction.created.
  const rows = [...page.text.matchAll(/<a href="\/webhooks\/deliveries\/(dlv_[0-9A-Za-z]+)">([a-z_.]+)</g)].map((x) => [x[1], x[2]]);
  expect(rows).toEqual(deliveries.map((d) => [d.id, d.event_type]));
  expect(rows.map((r) => r[1])).toEqual(['transaction.succeeded', 'transaction.created']);
  expect((await client.get(`/webhooks/${ep.id}?status=succeeded`)).text).toContain(deliveries[0]!.id);
  const failed = await client.get(`/webhooks/${ep.id}?status=failed`);
  expect(failed.text).toContain('id="no-deliveries"');
  expect(failed.text).toContain('<option value="failed" selected>');
  expect(failed.text).toMatch(/<label for="status-filter">[^<]+<\/label>\s*<select name="status" id="status-filter">/);

  const created = deliveries.find((d) => d.event_type === 'transaction.created')!;
  const received = toMerchant(m)(rx.deliveries).find((d) => d.headers['x-service-delivery-id'] === created.id)!;
  const detail = await client.get(`/webhooks/deliveries/${created.id}`);
  expect(detail.status).toBe(200);
  expect(detail.text).toContain('<table id="attempts">');
  expect(detail.text).toContain(`href="/webhooks/${ep.id}" id="delivery-endpoint"`);
  expect(detail.text).toContain(`POST ${htmlEscaped(`${rx.url}/${m.id}`)}`);
  expect(detail.text).toContain(`X-Service-Event-Id: ${created.event_id}`);
  expect(detail.text).toContain(`X-Service-Delivery-Id: ${created.id}`);
  expect(detail.text).toContain('X-Service-Attempt: 1');
  expect(detail.text).toContain(`X-Service-Sequence: ${received.headers['x-service-sequence']}`);
  expect(detail.text).toContain(chargeId);
  // The body is the bytes the receiver got, HTML-escaped (as the html tag escapes a value).
  expect(detail.text).toContain(htmlEscaped(received.body));
  expect(detail.text).toMatch(/<pre class="wh-pre wh-response">HTTP 200\n\nok<\/pre>/);
  expect(detail.text).toContain('id="replay"');
  expect(detail.text).not.toContain(ep.secret);
  expect(detail.text).not.toMatch(/whsec_/);
});

test('replay from the delivery page: a new delivery reaches the receiver with the same event id, the page says so, and the replay is audited', async () => {
  const { m, email, client, ep, deliveries } = await endpointWithDeliveries();
  const original = deliveries[0]!;
  const form = await formOf(client, `/webhooks/deliveries/${original.id}`);
  const res = await client.post(`/webhooks/deliveries/${original.id}/replay`, form);
  expect(res.status).toBe(303);
  const location = res.headers.get('location')!;
  const newId = /^\/webhooks\/deliveries\/(dlv_[0-9A-Za-z]+)\?replayed=1$/.exec(location)?.[1];
  expect(newId).toBeDefined();
  expect(newId).not.toBe(original.id);

  const arrived = await rx.waitFor((ds) => toMerchant(m)(ds).some((d) => d.headers['x-service-delivery-id'] === newId));
  const same = toMerchant(m)(arrived).filter((d) => d.headers['x-service-event-id'] === original.event_id);
  expect(same.map((d) => d.headers['x-service-delivery-id'])).toEqual([original.id, newId]);
  expect(same[1]!.validFor).toEqual([ep.secret]);

  const shown = await client.get(location);
  expect(shown.text).toMatch(/<p class="notice" role="status" id="message">Replay queued: this is the new delivery/);
  expect(shown.text).toContain(`href="/webhooks/deliveries/${original.id}" id="replay-of"`);
  expect((await client.get(`/webhooks/${ep.id}`)).text).toContain(`/webhooks/deliveries/${newId}`);

  const audit = await auditOf(newId!);
  expect(audit).toEqual([
    expect.objectContaining({ action: 'webhook_delivery.replay', operator: `portal:${email}`, reason: 'portal: Webhooks', request_id: res.headers.get('request-id'), environment: 'sandbox' }),
  ]);
  expect(audit[0]!.state_before).toMatchObject({ id: original.id, event_id: original.event_id });
  expect(audit[0]!.state_after).toMatchObject({ id: newId, replay_of: original.id, status: 'pending' });
});

test('rotate: the new secret is shown once, signs the next delivery, and the rotation is audited; disable and enable are audited and a disabled endpoint’s replay shows the service’s message', async () => {
  const { m, email, client, ep, deliveries } = await endpointWithDeliveries();
  const page = await client.get(`/webhooks/${ep.id}`);
  const rotated = await client.post(`/webhooks/${ep.id}/rotate`, PortalClient.formOf(page.text));
  expect(rotated.status).toBe(200);
  const secret = secretOf(rotated.text)!;
  expect(secret).toMatch(/^whsec_/);
  expect(secret).not.toBe(ep.secret);
  expect(rotated.text).toContain(`href="/webhooks/${ep.id}" id="endpoint-link"`);
  expect(rotated.text).toContain('id="previous-secret"');
  expect((await client.get(`/webhooks/${ep.id}`)).text).not.toContain(secret);
  const rotation = (await auditOf(ep.id)).filter((a) => a.action === 'webhook_endpoint.rotate_secret');
  expect(rotation).toEqual([expect.objectContaining({ operator: `portal:${email}`, request_id: rotated.headers.get('request-id') })]);
  expect(JSON.stringify(rotation)).not.toContain(secret);

  // The next delivery (a replay) is signed with the new secret first, the old one during the overlap.
  rx.setSecrets([secret, ep.secret]);
  const replayed = await client.post(`/webhooks/deliveries/${deliveries[0]!.id}/replay`, PortalClient.formOf(page.text));
  const replayId = /dlv_[0-9A-Za-z]+/.exec(replayed.headers.get('location')!)![0];
  const got = await rx.waitFor((ds) => ds.some((d) => d.headers['x-service-delivery-id'] === replayId));
  expect(got.find((d) => d.headers['x-service-delivery-id'] === replayId)!.validFor).toEqual([secret, ep.secret]);

  // Disable: the page says so; a replay is refused with the service's message and creates nothing.
  const disabled = await client.post(`/webhooks/${ep.id}/status`, { ...PortalClient.formOf(page.text), status: 'disabled' });
  expect({ status: disabled.status, location: disabled.headers.get('location') }).toEqual({ status: 303, location: `/webhooks/${ep.id}?updated=1` });
  const after = await client.get(`/webhooks/${ep.id}?updated=1`);
  expect(after.text).toMatch(/id="message">The endpoint is disabled/);
  expect(after.text).toContain('id="enable-endpoint"');
  const before = await deliveryCount(m.id);
  const refused = await client.post(`/webhooks/deliveries/${deliveries[0]!.id}/replay`, PortalClient.formOf(page.text));
  expect(refused.status).toBe(409);
  expect(refused.text).toMatch(/<p class="error" role="alert" id="message">Not replayed: Endpoint we_[0-9A-Za-z]+ is disabled/);
  expect(await deliveryCount(m.id)).toBe(before);

  const enabled = await client.post(`/webhooks/${ep.id}/status`, { ...PortalClient.formOf(page.text), status: 'active' });
  expect(enabled.status).toBe(303);
  expect((await client.get(`/webhooks/${ep.id}?updated=1`)).text).toMatch(/id="message">The endpoint is active/);
  const updates = (await auditOf(ep.id)).filter((a) => a.action === 'webhook_endpoint.update');
  expect(updates.map((a) => [a.operator, a.state_before.status, a.state_after.status])).toEqual([
    [`portal:${email}`, 'active', 'disabled'],
    [`portal:${email}`, 'disabled', 'active'],
  ]);
  const invalid = await client.post(`/webhooks/${ep.id}/status`, { ...PortalClient.formOf(page.text), status: 'paused' });
  expect(invalid.status).toBe(400);
  expect(invalid.text).toContain('id="message"');
});

test('recover since: what a disabled endpoint skipped is sent again once it is enabled, the page shows the recovery’s progress, and it is audited; a time in the future is refused and changes nothing', async () => {
  const { m, email, client } = await signedIn();
  const ep = await register(client, m, { event: ['transaction.created'] });
  rx.setSecrets([ep.secret]);
  const form = () => formOf(client, `/webhooks/${ep.id}`);
  const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19); // a datetime-local value, read as UTC
  const since = utc(Date.now() - 1_000);
  await client.post(`/webhooks/${ep.id}/status`, { ...(await form()), status: 'disabled' });
  const chargeId = await charge(m);
  await settledDeliveries(m, ep.id, 1);
  await client.post(`/webhooks/${ep.id}/status`, { ...(await form()), status: 'active' });
  const page = await client.get(`/webhooks/${ep.id}`);
  expect(page.text).toMatch(/<label for="recover-since">Recover since \(UTC\)<\/label>\s*<input type="datetime-local" name="since" id="recover-since"/);
  expect(page.text).toContain('id="no-recoveries"');

  const audited = await auditCount(m.id);
  const future = await client.post(`/webhooks/${ep.id}/recover`, { ...(await form()), since: utc(Date.now() + 3_600_000) });
  expect(future.status).toBe(422);
  expect(future.text).toMatch(/<p class="error" role="alert" id="message">since must not be in the future/);
  expect(await auditCount(m.id)).toBe(audited);

  const posted = await client.post(`/webhooks/${ep.id}/recover`, { ...(await form()), since });
  expect(posted.status).toBe(303);
  const rid = /recovered=(whr_[0-9A-Za-z]{24})$/.exec(posted.headers.get('location')!)![1];
  const got = await rx.waitFor((ds) => toMerchant(m)(ds).some((d) => JSON.parse(d.body).resource_id === chargeId));
  expect(toMerchant(m)(got).filter((d) => JSON.parse(d.body).resource_id === chargeId)).toHaveLength(1);
  let shown = await client.get(`/webhooks/${ep.id}?recovered=${rid}`);
  for (const stop = Date.now() + 20_000; !shown.text.includes('wh-status-completed') && Date.now() < stop; ) {
    await new Promise((r) => setTimeout(r, 100));
    shown = await client.get(`/webhooks/${ep.id}?recovered=${rid}`);
  }
  expect(shown.text).toContain(`id="message">Recovery ${rid} started`);
  expect(shown.text).toMatch(new RegExp(`<tr id="${rid}">\\s*<td><code>${rid}</code></td>\\s*<td><time datetime="${since}\\.000Z">[^<]+</time></td>\\s*<td><span class="wh-status wh-status-completed">completed</span></td>\\s*<td>1 of 1</td>\\s*<td>1</td>`));
  expect(await auditOf(rid)).toEqual([expect.objectContaining({ action: 'webhook_endpoint.recover', operator: `portal:${email}`, reason: 'portal: Webhooks', request_id: posted.headers.get('request-id') })]);
});

test('FIFO: registered with delivery order FIFO, the page shows the order, the events waiting behind a failing one and the first of them; Skip event lets the rest go on (audited), refusals show their message; the order switch is audited', async () => {
  const { m, email, client } = await signedIn();
  const blank = await client.get('/webhooks');
  expect(blank.text).toMatch(/<input type="radio" name="delivery_order" value="unordered" id="order-unordered" checked>/);
  expect(blank.text).toMatch(/<input type="radio" name="delivery_order" value="fifo" id="order-fifo">/);
  let stuck: number | undefined;
  rx.respond((d) => {
    if (d.path !== `/hook/${m.id}`) return { status: 200 };
    stuck ??= Number(d.headers['x-service-sequence']);
    return Number(d.headers['x-service-sequence']) === stuck ? { status: 500, body: 'broken' } : { status: 200 };
  });
  const ep = await register(client, m, { event: ['transaction.created'], delivery_order: 'fifo' });
  rx.setSecrets([ep.secret]);
  expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey })).json.delivery_order).toBe('fifo');
  expect((await auditOf(ep.id))[0]!.state_after.delivery_order).toBe('fifo');
  const fresh = await client.get(`/webhooks/${ep.id}`);
  expect(fresh.text).toMatch(/<dd id="endpoint-order">FIFO: one event at a time, in sequence order/);
  expect(fresh.text).toContain('Nothing waiting in the FIFO queue');
  expect(fresh.text).toContain('id="fifo-empty"');
  expect(fresh.text).toMatch(/<label for="skip-sequence">Skip event \(sequence number\)<\/label>\s*<input type="number" name="sequence" id="skip-sequence"/);

  await charge(m);
  await charge(m);
  let page = await client.get(`/webhooks/${ep.id}`);
  for (const stop = Date.now() + 20_000; !(page.text.includes('2 events waiting in the FIFO queue') && toMerchant(m)(rx.deliveries).length >= 1) && Date.now() < stop; ) {
    await new Promise((r) => setTimeout(r, 100));
    page = await client.get(`/webhooks/${ep.id}`);
  }
  expect(page.text).toMatch(/<dd id="endpoint-health">[\s\S]*<span class="wh-waiting">2 events waiting in the FIFO queue since <time datetime="[^"]+">/);
  expect(page.text).toMatch(new RegExp(`<p id="fifo-head">First in the queue: event ${stuck} \\(transaction\\.created <code>evt_`));
  expect(page.text).toContain(`<br><small>sequence ${stuck}</small>`);
  expect((await client.get('/webhooks')).text).toContain('2 events waiting in the FIFO queue');

  const audited = await auditCount(m.id);
  const form = () => formOf(client, `/webhooks/${ep.id}`);
  const unknown = await client.post(`/webhooks/${ep.id}/skip`, { ...(await form()), sequence: String(stuck! + 1000) });
  expect(unknown.status).toBe(404);
  expect(unknown.text).toMatch(/<p class="error" role="alert" id="message">Not skipped: No delivery of event sequence \d+ in the FIFO queue/);
  const notNumber = await client.post(`/webhooks/${ep.id}/skip`, { ...(await form()), sequence: 'first' });
  expect(notNumber.status).toBe(400);
  expect(notNumber.text).toMatch(/id="message">Not skipped: Give the sequence number/);
  expect(await auditCount(m.id)).toBe(audited);

  const skipped = await client.post(`/webhooks/${ep.id}/skip`, { ...(await form()), sequence: String(stuck) });
  expect({ status: skipped.status, location: skipped.headers.get('location') }).toEqual({ status: 303, location: `/webhooks/${ep.id}?skipped=${stuck}` });
  const after = await client.get(`/webhooks/${ep.id}?skipped=${stuck}`);
  expect(after.text).toMatch(new RegExp(`<p class="notice" role="status" id="message">Event ${stuck} skipped`));
  // The one behind it is sent at once and succeeds: the queue is empty.
  await rx.waitFor((ds) => toMerchant(m)(ds).some((d) => Number(d.headers['x-service-sequence']) > stuck!));
  const settled = await settledDeliveries(m, ep.id, 2);
  expect(settled.map((d) => d.status).sort()).toEqual(['skipped', 'succeeded']);
  expect((await client.get(`/webhooks/${ep.id}`)).text).toContain('Nothing waiting in the FIFO queue');
  const skip = (await sql<{ action: string; operator: string; reason: string; request_id: string; merchant_id: string }>(
    `select action, operator, reason, request_id, merchant_id from operator_audit where merchant_id = ? and action = 'webhook_delivery.skip'`,
    [m.id],
  ));
  expect(skip).toEqual([{ action: 'webhook_delivery.skip', operator: `portal:${email}`, reason: 'portal: Webhooks', request_id: skipped.headers.get('request-id'), merchant_id: m.id }]);

  const lifo = await client.post(`/webhooks/${ep.id}/order`, { ...(await form()), delivery_order: 'lifo' });
  expect(lifo.status).toBe(400);
  expect(lifo.text).toContain('id="message"');
  const switched = await client.post(`/webhooks/${ep.id}/order`, { ...(await form()), delivery_order: 'unordered' });
  expect({ status: switched.status, location: switched.headers.get('location') }).toEqual({ status: 303, location: `/webhooks/${ep.id}?ordered=1` });
  const unordered = await client.get(`/webhooks/${ep.id}?ordered=1`);
  expect(unordered.text).toMatch(/id="message">Delivery order is unordered/);
  expect(unordered.text).toMatch(/<dd id="endpoint-order">Unordered/);
  expect(unordered.text).not.toContain('id="skip-event"');
  expect(unordered.text).toContain('id="order-fifo"');
  expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey })).json.delivery_order).toBe('unordered');
  const update = (await auditOf(ep.id)).filter((a) => a.action === 'webhook_endpoint.update');
  expect(update.map((a) => [a.operator, a.state_before.delivery_order, a.state_after.delivery_order])).toEqual([[`portal:${email}`, 'fifo', 'unordered']]);
});

test('paging: 20 deliveries a page, newest first, an "Older" link to the rest', async () => {
  const { m, client, ep, deliveries } = await endpointWithDeliveries();
  // 20 replays through the API make 22 deliveries.
  for (let i = 0; i < 20; i++) {
    expect((await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${deliveries[0]!.id}/replay`, { key: m.testKey })).status).toBe(202);
  }
  const all = await settledDeliveries(m, ep.id, 22);
  const first = await client.get(`/webhooks/${ep.id}`);
  const rowsOf = (text: string) => [...text.matchAll(/<a href="\/webhooks\/deliveries\/(dlv_[0-9A-Za-z]+)">/g)].map((x) => x[1]);
  expect(rowsOf(first.text)).toEqual(all.slice(0, 20).map((d) => d.id));
  const older = /<a href="([^"]+)" id="older-deliveries"/.exec(first.text)![1]!.replace(/&amp;/g, '&');
  const second = await client.get(older);
  expect(rowsOf(second.text)).toEqual(all.slice(20).map((d) => d.id));
  expect(second.text).not.toContain('id="older-deliveries"');
  expect(second.text).toContain('id="newest-deliveries"');
  const bad = await client.get(`/webhooks/${ep.id}?cursor=nonsense`);
  expect(bad.status).toBe(400);
  expect(rowsOf(bad.text)).toEqual(all.slice(0, 20).map((d) => d.id));
});

test('POSTs without the CSRF token (or with a wrong one) are 403 and change nothing', async () => {
  const { m, client, ep, deliveries } = await endpointWithDeliveries();
  const form = await formOf(client);
  const wrong = form.csrf.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
  const before = { endpoints: await endpointCount(m.id), deliveries: await deliveryCount(m.id), audit: await auditCount(m.id) };
  const posts: Array<[string, Record<string, string>]> = [
    ['/webhooks', { url: `${rx.url}/${m.id}/x` }],
    [`/webhooks/${ep.id}/rotate`, {}],
    [`/webhooks/${ep.id}/status`, { status: 'disabled' }],
    [`/webhooks/${ep.id}/delete`, { confirm: 'yes' }],
    [`/webhooks/${ep.id}/order`, { delivery_order: 'fifo' }],
    [`/webhooks/${ep.id}/skip`, { sequence: '1' }],
    [`/webhooks/deliveries/${deliveries[0]!.id}/replay`, {}],
  ];
  for (const [path, fields] of posts) {
    expect({ path, status: (await client.post(path, fields)).status }).toEqual({ path, status: 403 });
    expect({ path, status: (await client.post(path, { ...fields, environment: form.environment, csrf: wrong })).status }).toEqual({ path, status: 403 });
    expect({ path, status: (await client.post(path, { ...fields, ...form }, { origin: 'https://evil.example' })).status }).toEqual({ path, status: 403 });
  }
  expect({ endpoints: await endpointCount(m.id), deliveries: await deliveryCount(m.id), audit: await auditCount(m.id) }).toEqual(before);
  expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey })).json.status).toBe('active');
  // With the token, delete works (and asks for the confirmation first).
  expect((await client.post(`/webhooks/${ep.id}/delete`, form)).status).toBe(400);
  const deleted = await client.post(`/webhooks/${ep.id}/delete`, { ...form, confirm: 'yes' });
  expect({ status: deleted.status, location: deleted.headers.get('location') }).toEqual({ status: 303, location: '/webhooks?deleted=1' });
  expect((await client.get(`/webhooks/${ep.id}`)).status).toBe(404);
  expect((await auditOf(ep.id)).map((a) => a.action)).toContain('webhook_endpoint.delete');
});

test('another merchant’s endpoint and delivery ids are 404 on every page and action, and change nothing', async () => {
  const owner = await endpointWithDeliveries();
  const { client: stranger, m: other } = await signedIn();
  const form = await formOf(stranger);
  const strangerAudit = await auditCount(other.id);
  const ownerState = { deliveries: await deliveryCount(owner.m.id), audit: await auditCount(owner.m.id) };
  const delivery = owner.deliveries[0]!.id;
  for (const path of [`/webhooks/${owner.ep.id}`, `/webhooks/deliveries/${delivery}`, '/webhooks/we_nope', '/webhooks/deliveries/dlv_nope']) {
    const res = await stranger.get(path);
    expect({ path, status: res.status }).toEqual({ path, status: 404 });
    expect(res.text).not.toContain(owner.m.id);
  }
  for (const [path, fields] of [
    [`/webhooks/${owner.ep.id}/rotate`, {}],
    [`/webhooks/${owner.ep.id}/status`, { status: 'disabled' }],
    [`/webhooks/${owner.ep.id}/delete`, { confirm: 'yes' }],
    [`/webhooks/${owner.ep.id}/order`, { delivery_order: 'fifo' }],
    [`/webhooks/${owner.ep.id}/skip`, { sequence: '1' }],
    [`/webhooks/deliveries/${delivery}/replay`, {}],
  ] as Array<[string, Record<string, string>]>) {
    expect({ path, status: (await stranger.post(path, { ...fields, ...form })).status }).toEqual({ path, status: 404 });
  }
  expect({ deliveries: await deliveryCount(owner.m.id), audit: await auditCount(owner.m.id) }).toEqual(ownerState);
  expect(await auditCount(other.id)).toBe(strangerAudit);
  expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${owner.ep.id}`, { key: owner.m.testKey })).json.status).toBe('active');
  expect((await stranger.get('/webhooks')).text).not.toContain(owner.ep.id);
});

test('live does not show the sandbox’s endpoints or deliveries; its register form refuses a local receiver', async () => {
  const { m, client, ep, deliveries } = await endpointWithDeliveries();
  const sandbox = await client.get('/webhooks');
  expect(sandbox.text).toContain(ep.id);
  const switched = await client.post('/environment', { csrf: PortalClient.csrfOf(sandbox.text), environment: 'live', return: '/webhooks' });
  expect({ status: switched.status, location: switched.headers.get('location') }).toEqual({ status: 303, location: '/webhooks' });
  const live = await client.get('/webhooks');
  expect(live.text).toContain('<h1>Webhooks (live)</h1>');
  expect(live.text).toContain('id="no-endpoints"');
  expect(live.text).not.toContain(ep.id);
  expect(live.text).not.toContain('id="test-mode"');
  expect((await client.get(`/webhooks/${ep.id}`)).status).toBe(404);
  expect((await client.get(`/webhooks/deliveries/${deliveries[0]!.id}`)).status).toBe(404);
  const form = PortalClient.formOf(live.text);
  expect((await client.post(`/webhooks/deliveries/${deliveries[0]!.id}/replay`, form)).status).toBe(404);
  expect((await client.post(`/webhooks/${ep.id}/rotate`, form)).status).toBe(404);
  const local = await client.post('/webhooks', { ...form, url: `${rx.url}/${m.id}` });
  expect(local.status).toBe(400);
  expect(local.text).toContain('id="message"');
  expect(Number((await sql<{ n: string }>(`select count(*) as n from webhook_endpoints where merchant_id = ? and environment = 'live'`, [m.id]))[0]!.n)).toBe(0);
  expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey })).json.status).toBe('active');
});
