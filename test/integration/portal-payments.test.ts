import pathModule from 'node:path';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config';
import { runSettlements } from '../../src/services/settlement-run';
import { newId } from '../../src/support/new-id';
import { axeViolations } from '../support/axe';
import { launchChromium } from '../support/chromium';
import { fundMerchant } from '../support/fund-merchant';
import { htmlEscaped } from '../support/html-escaped';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { writeLiveCharge } from '../support/live-charge';
import { PortalClient } from '../support/portal-client';
import { signedInUser, startPortalWeb, type PortalWeb } from '../support/portal-web';
import { giveSettlementAccount } from '../support/settlement-runs';

/**
 * The merchant portal's Payments pages (src/web/portal/payments-*.ts) over HTTP, against the suite's
 * PostgreSQL and Temporal dev server with the payments worker: payments made through the API (charges,
 * a refund, a dispute, a payout, a settlement run), then each tab compared with the API's own list
 * (same objects, same order, same cursor), the filters, cursor paging, each payment's page (its
 * timeline against GET /v1/events, related objects, the Temporal UI link to its real workflow), the
 * merchant and environment scoping (404), the sign-in redirect, and axe-core in Chromium (screenshots
 * to SCREENSHOTS_DIR when set).
 */

const TEMPORAL_UI = { baseUrl: 'http://127.0.0.1:8233', namespace: 'default' };

let h: Harness;
let web: PortalWeb;
let url: string;

/** Merchant A's payments, made through the API. */
const made = {} as { ok: string; declined: string; third: string; refund: string; dispute: string; payout: string; settlement: string; live: string; others: string };
let m: TestMerchant;
let other: TestMerchant;
let client: PortalClient;
let otherClient: PortalClient;

const signedIn = async (merchant: TestMerchant): Promise<PortalClient> => (await signedInUser(url, h.orm, merchant.id)).client;

const api = (merchant: TestMerchant, method: string, path: string, body?: unknown) =>
  h.request('sandbox', method, path, { key: merchant.testKey, ...(body === undefined ? {} : { body, headers: { 'Idempotency-Key': idempotencyKey() } }) });

async function charge(merchant: TestMerchant, overrides: Record<string, unknown>): Promise<string> {
  const res = await api(merchant, 'POST', '/v1/charges', chargeBody(overrides));
  expect(res.status).toBe(200);
  return res.json.id;
}

const finished = (id: string) => h.temporal.client.workflow.getHandle(id).result();

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  web = await startPortalWeb(h, { temporalUi: TEMPORAL_UI, portalTemporalUiLink: true });
  url = web.url;

  m = await h.merchant();
  other = await h.merchant();
  // Created one after the other, so the lists' order (newest first) is known.
  made.ok = await charge(m, { amount: 15_000, reference: 'order-ok' });
  made.declined = await charge(m, { amount: 2_500, reference: 'order-declined', metadata: { sandbox_outcome: 'declined' } });
  made.third = await charge(m, { amount: 7_000, reference: 'order-third' });
  made.others = await charge(other, { amount: 9_900, reference: 'not-yours' });
  for (const id of [made.ok, made.declined, made.third, made.others]) await h.settled(id);

  const refund = await api(m, 'POST', '/v1/refunds', { charge: made.ok, amount: 4_000 });
  expect(refund.status).toBe(200);
  made.refund = refund.json.id;
  await finished(made.refund);
  const dispute = await api(m, 'POST', `/v1/sandbox/charges/${made.ok}/disputes`, { amount: 3_000 });
  expect(dispute.status).toBe(200);
  made.dispute = dispute.json.id;

  await fundMerchant(h, m.id, 200_000);
  const payout = await api(m, 'POST', '/v1/payouts', {
    amount: 10_000,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    recipient: { identifier: '233240004567', name: 'Kofi Boateng' },
    reference: 'salary-nov',
  });
  expect(payout.status).toBe(200);
  made.payout = payout.json.id;
  await finished(made.payout);

  await giveSettlementAccount(h, m.id);
  const run = await runSettlements({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue }, { merchantId: m.id, environment: 'sandbox' });
  expect(run.batches).toHaveLength(1);
  made.settlement = run.batches[0]!.id;
  await finished(made.settlement);

  made.live = (await writeLiveCharge(h, m)).id;

  client = await signedIn(m);
  otherClient = await signedIn(other);
}, 180_000);

afterAll(async () => {
  await web?.close();
  await h?.close();
});

/** The ids in the first column of a table of the page (`#payments` by default), in order. */
function tableIds(html: string, tableId = 'payments'): string[] {
  const start = html.indexOf(`<table id="${tableId}"`);
  if (start < 0) return [];
  const table = html.slice(start, html.indexOf('</table>', start));
  return [...table.matchAll(/<tr><td><a href="\/payments\/([^"]+)">/g)].map((x) => x[1]!);
}

/** The href of an element with this id, entities decoded. */
function hrefOf(html: string, id: string): string | null {
  const match = new RegExp(`<a href="([^"]*)" id="${id}"|<a id="${id}" href="([^"]*)"`).exec(html);
  const raw = match?.[1] ?? match?.[2];
  return raw === undefined ? null : raw.replace(/&amp;/g, '&');
}

function timelineOf(html: string): { id: string; sequence: number; type: string }[] {
  const start = html.indexOf('<ol id="timeline"');
  if (start < 0) return [];
  const list = html.slice(start, html.indexOf('</ol>', start));
  return [...list.matchAll(/<li id="([^"]+)" data-sequence="(\d+)" data-type="([^"]+)"/g)].map((x) => ({ id: x[1]!, sequence: Number(x[2]), type: x[3]! }));
}

/** The merchant's sandbox events about `id`, as GET /v1/events serves them, oldest first. */
async function apiEventsOf(merchant: TestMerchant, id: string): Promise<{ id: string; sequence: number; type: string }[]> {
  const res = await api(merchant, 'GET', '/v1/events?after_sequence=0&limit=100');
  expect(res.status).toBe(200);
  expect(res.json.has_more).toBe(false);
  return (res.json.data as { id: string; sequence: number; type: string; resource_id: string }[]).filter((e) => e.resource_id === id).map((e) => ({ id: e.id, sequence: e.sequence, type: e.type }));
}

const API_LIST: Record<string, string> = { charges: '/v1/charges', payouts: '/v1/payouts', refunds: '/v1/refunds', disputes: '/v1/disputes', settlements: '/v1/settlements' };

test('signed out: the list and a payment page redirect to sign-in and show nothing', async () => {
  const anonymous = new PortalClient(url);
  for (const path of ['/payments', `/payments?type=payouts`, `/payments/${made.ok}`]) {
    const res = await anonymous.get(path);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/sign-in');
    expect(res.text).not.toContain(made.ok);
  }
});

test('each tab lists its kind for the session merchant only, as the API lists them (same objects, same order), masked and formatted', async () => {
  const expected: Record<string, string[]> = {
    charges: [made.third, made.declined, made.ok],
    payouts: [made.payout],
    refunds: [made.refund],
    disputes: [made.dispute],
    settlements: [made.settlement],
  };
  for (const [type, ids] of Object.entries(expected)) {
    const page = await client.get(`/payments?type=${type}`);
    expect(page.status).toBe(200);
    expect(tableIds(page.text)).toEqual(ids);
    // The API's list of the same merchant and environment: the same objects in the same order.
    const listed = await api(m, 'GET', `${API_LIST[type]}?limit=100`);
    expect(listed.json.data.map((o: { id: string }) => o.id)).toEqual(ids);
    // The current tab is marked; the others are links.
    expect(page.text).toContain(`<a href="/payments?type=${type}" id="tab-${type}" aria-current="page">`);
    expect(page.text.match(/aria-current="page"/g)).toHaveLength(2); // the header's Payments entry and the tab
    expect(page.text).not.toContain(made.others);
  }
  const charges = await client.get('/payments');
  expect(tableIds(charges.text)).toEqual(expected.charges);
  expect(charges.text).toContain('<caption>Charges (sandbox), newest first</caption>');
  expect(charges.text).toContain('GHS 150.00');
  expect(charges.text).toContain('GHS 25.00');
  // The customer as the API shows it (masked), never the full number.
  const apiCharge = (await api(m, 'GET', `/v1/charges/${made.ok}`)).json;
  expect(charges.text).toContain(apiCharge.customer.masked);
  expect(charges.text).not.toContain('233241234567');
  const payouts = await client.get('/payments?type=payouts');
  expect(payouts.text).toContain((await api(m, 'GET', `/v1/payouts/${made.payout}`)).json.recipient.masked);
  expect(payouts.text).not.toContain('233240004567');
  expect(payouts.text).toContain('GHS 100.00');
  // The refund row links its charge; the settlement row shows the masked account only.
  expect((await client.get('/payments?type=refunds')).text).toContain(`refund of <a href="/payments/${made.ok}">`);
  const settlements = await client.get('/payments?type=settlements');
  expect(settlements.text).toContain((await api(m, 'GET', `/v1/settlements/${made.settlement}`)).json.destination.account_masked);
  expect(settlements.text).not.toContain('0012345678901');

  // The other merchant sees only its own charge, and an empty state on the other tabs.
  const theirs = await otherClient.get('/payments');
  expect(tableIds(theirs.text)).toEqual([made.others]);
  const none = await otherClient.get('/payments?type=refunds');
  expect(tableIds(none.text)).toEqual([]);
  expect(none.text).toContain('<p id="no-payments">No refunds in sandbox yet.</p>');
});

test('the filters: the API list\'s own (status, channel, reference, charge, created dates), with every control labelled; a value the API would refuse is not applied and is named', async () => {
  const ids = async (query: string) => {
    const page = await client.get(`/payments?${query}`);
    expect(page.status).toBe(200);
    return { ids: tableIds(page.text), text: page.text };
  };
  expect((await ids('type=charges&status=failed')).ids).toEqual([made.declined]);
  expect((await ids('type=charges&status=succeeded')).ids).toEqual([made.third, made.ok]);
  // The API's own filter answers the same.
  expect((await api(m, 'GET', '/v1/charges?status=failed')).json.data.map((c: { id: string }) => c.id)).toEqual([made.declined]);
  expect((await ids('type=charges&reference=order-declined')).ids).toEqual([made.declined]);
  const card = await ids('type=charges&channel=card');
  expect(card.ids).toEqual([]);
  expect(card.text).toContain('<p id="no-payments">No charges match these filters.</p>');
  expect((await ids(`type=refunds&charge=${made.ok}`)).ids).toEqual([made.refund]);
  expect((await ids(`type=refunds&charge=${made.third}`)).ids).toEqual([]);
  expect((await ids('type=disputes&status=needs_response')).ids).toEqual([made.dispute]);
  expect((await ids('type=disputes&status=won')).ids).toEqual([]);

  const today = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  expect((await ids(`type=charges&created_from=${today}&created_to=${today}`)).ids).toEqual([made.third, made.declined, made.ok]);
  expect((await ids(`type=charges&created_from=${tomorrow}`)).ids).toEqual([]);

  // Not values of this list: shown as not applied, the rest of the form still applies.
  const bad = await ids('type=charges&status=paid&created_from=2026-02-30&channel=mobile_money');
  expect(bad.ids).toEqual([made.third, made.declined, made.ok]);
  expect(bad.text).toContain('<p class="error" role="alert" id="ignored-filters">Not applied (not a value this list accepts): status, created from.</p>');
  const refused = await ids('type=refunds&charge=txn_bad&reference=order-ok');
  expect(refused.ids).toEqual([made.refund]);
  expect(refused.text).toMatch(/id="ignored-filters">Not applied \(not a value this list accepts\): reference, charge ID\./);

  // The form: a GET form, each control with its label; the status choices are the list's statuses.
  const form = (await client.get('/payments?type=payouts&status=failed')).text;
  const formHtml = form.slice(form.indexOf('<form method="get" action="/payments" id="filters"'), form.indexOf('</form>', form.indexOf('id="filters"')));
  expect(formHtml).toContain('<option value="failed" selected>failed</option>');
  expect(formHtml).toContain('<option value="held_for_review">held for review</option>');
  for (const control of formHtml.matchAll(/<(?:select|input) (?:type="(?:text|date)" )?id="([^"]+)"/g)) expect(formHtml).toContain(`<label for="${control[1]}">`);
  expect(formHtml).toContain('id="f-channel"');
  expect(formHtml).toContain('id="f-reference"');
  expect(formHtml).not.toContain('id="f-charge"');
  expect((await client.get('/payments?type=settlements')).text).not.toContain('id="f-channel"');
});

test('cursor paging: "Older" carries the API\'s next_cursor, page by page, with the filters kept', async () => {
  const first = await client.get('/payments?type=charges&limit=1');
  expect(tableIds(first.text)).toEqual([made.third]);
  expect(hrefOf(first.text, 'newest')).toBeNull();
  const apiFirst = await api(m, 'GET', '/v1/charges?limit=1');
  const older = hrefOf(first.text, 'older')!;
  expect(new URL(older, url).searchParams.get('cursor')).toBe(apiFirst.json.next_cursor);

  const second = await client.get(older);
  expect(tableIds(second.text)).toEqual([made.declined]);
  expect(hrefOf(second.text, 'newest')).toBe('/payments?type=charges&limit=1');
  const third = await client.get(hrefOf(second.text, 'older')!);
  expect(tableIds(third.text)).toEqual([made.ok]);
  expect(hrefOf(third.text, 'older')).toBeNull();

  // With a filter: it stays on every page.
  const succeeded = await client.get('/payments?type=charges&status=succeeded&limit=1');
  expect(tableIds(succeeded.text)).toEqual([made.third]);
  const next = hrefOf(succeeded.text, 'older')!;
  expect(new URL(next, url).searchParams.get('status')).toBe('succeeded');
  const last = await client.get(next);
  expect(tableIds(last.text)).toEqual([made.ok]);
  expect(hrefOf(last.text, 'older')).toBeNull();

  // Another list's cursor (a charge cursor on the payouts tab) is not applied.
  const mixed = await client.get(`/payments?type=payouts&cursor=${encodeURIComponent(apiFirst.json.next_cursor)}`);
  expect(tableIds(mixed.text)).toEqual([made.payout]);
  expect(mixed.text).toContain('page position (cursor)');
});

test('a charge\'s page: its API fields, the timeline of its events in sequence order as GET /v1/events shows them, its refunds and disputes, and its workflow in the Temporal UI', async () => {
  const page = await client.get(`/payments/${made.ok}`);
  expect(page.status).toBe(200);
  const apiCharge = (await api(m, 'GET', `/v1/charges/${made.ok}`)).json;
  expect(page.text).toContain(`<code id="payment-id">${made.ok}</code>`);
  expect(page.text).toContain('<dd id="field-amount">GHS 150.00</dd>');
  expect(page.text).toContain(`<dd id="field-amount_refunded">GHS 40.00</dd>`);
  expect(apiCharge.amount_refunded).toBe(4_000);
  expect(page.text).toContain(`<dd id="field-customer-masked">${apiCharge.customer.masked}</dd>`);
  expect(page.text).toContain(`<dd id="field-fee-platform">`);
  expect(page.text).not.toContain('233241234567');

  const timeline = timelineOf(page.text);
  const events = await apiEventsOf(m, made.ok);
  expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['transaction.created', 'transaction.succeeded']));
  expect(timeline).toEqual(events);
  expect(timeline.map((e) => e.sequence)).toEqual([...timeline.map((e) => e.sequence)].sort((a, b) => a - b));

  expect(tableIds(page.text, 'related-refunds')).toEqual([made.refund]);
  expect(tableIds(page.text, 'related-disputes')).toEqual([made.dispute]);

  const link = /<a id="temporal-link" href="([^"]+)" rel="noopener">Open its workflow in the Temporal UI<\/a>/.exec(page.text);
  expect(link?.[1]).toBe(`http://127.0.0.1:8233/namespaces/default/workflows/${made.ok}`);
  // It names the charge's real workflow.
  expect((await h.temporal.client.workflow.getHandle(made.ok).describe()).type).toBe('chargeWorkflow');

  // The declined charge: its failure and its own events only.
  const declined = await client.get(`/payments/${made.declined}`);
  expect(declined.text).toContain('<dd id="field-failure_class">declined</dd>');
  expect(timelineOf(declined.text)).toEqual(await apiEventsOf(m, made.declined));
  expect(timelineOf(declined.text).map((e) => e.type)).toEqual(['transaction.created', 'transaction.failed']);
  expect(declined.text).toContain('<p id="no-refunds">No refunds.</p>');
});

test('issue 47: the Temporal UI (an operators\' tool) is linked from a payment\'s page only with PORTAL_TEMPORAL_UI_LINK, not merely because TEMPORAL_UI_URL is set', async () => {
  // As main.ts wires it: TEMPORAL_UI_URL always reaches the web app; the link is its own opt-in (default off).
  const plain = await startPortalWeb(h, { temporalUi: TEMPORAL_UI, portalTemporalUiLink: loadConfig({ TEMPORAL_UI_URL: TEMPORAL_UI.baseUrl }).portalTemporalUiLink });
  try {
    const viewer = new PortalClient(plain.url);
    for (const [name, value] of client.cookies) viewer.cookies.set(name, value);
    for (const id of [made.ok, made.payout, made.refund]) {
      const page = await viewer.get(`/payments/${id}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`<code id="payment-id">${id}</code>`);
      expect(page.text).not.toContain('temporal-link');
      expect(page.text).not.toContain(TEMPORAL_UI.baseUrl);
    }
    // With the opt-in (the suite's own web port): the link.
    expect(hrefOf((await client.get(`/payments/${made.ok}`)).text, 'temporal-link')).toBe(`${TEMPORAL_UI.baseUrl}/namespaces/default/workflows/${made.ok}`);
  } finally {
    await plain.close();
  }
  expect(loadConfig({ PORTAL_TEMPORAL_UI_LINK: 'true' }).portalTemporalUiLink).toBe(true);
  expect(() => loadConfig({ PORTAL_TEMPORAL_UI_LINK: 'yes' })).toThrow(/PORTAL_TEMPORAL_UI_LINK must be "true" or "false"/);
});

test('the page of a payout, a refund, a dispute and a settlement: fields, timeline as the API\'s events, related objects linked, the workflow link to its real workflow', async () => {
  const workflowTypes: Record<string, string> = {
    [made.payout]: 'payoutWorkflow',
    [made.refund]: 'refundWorkflow',
    [made.dispute]: 'disputeWorkflow',
    [made.settlement]: 'settlementWorkflow',
  };
  for (const [id, workflowType] of Object.entries(workflowTypes)) {
    const page = await client.get(`/payments/${id}`);
    expect(page.status).toBe(200);
    const timeline = timelineOf(page.text);
    expect(timeline.length).toBeGreaterThan(0);
    expect(timeline).toEqual(await apiEventsOf(m, id));
    expect(hrefOf(page.text, 'temporal-link')).toBe(`http://127.0.0.1:8233/namespaces/default/workflows/${id}`);
    expect((await h.temporal.client.workflow.getHandle(id).describe()).type).toBe(workflowType);
  }
  const payout = await client.get(`/payments/${made.payout}`);
  expect(timelineOf(payout.text).map((e) => e.type)).toEqual(['payout.initiated', 'payout.succeeded']);
  expect(payout.text).toContain('<dd id="field-total_debit">');
  expect(payout.text).not.toContain('233240004567');

  const refund = await client.get(`/payments/${made.refund}`);
  expect(tableIds(refund.text, 'related-charge')).toEqual([made.ok]);
  expect(refund.text).toContain(`<dd id="field-charge"><a href="/payments/${made.ok}">${made.ok}</a></dd>`);
  expect(timelineOf(refund.text).map((e) => e.type)).toEqual(['refund.created', 'refund.succeeded']);

  const dispute = await client.get(`/payments/${made.dispute}`);
  expect(tableIds(dispute.text, 'related-charge')).toEqual([made.ok]);
  expect(timelineOf(dispute.text)[0]!.type).toBe('dispute.opened');

  const settlement = await client.get(`/payments/${made.settlement}`);
  expect(timelineOf(settlement.text).map((e) => e.type)).toEqual(['settlement.created', 'settlement.paid']);
  const entries = await api(m, 'GET', `/v1/settlements/${made.settlement}/entries?limit=100`);
  const swept = settlement.text.slice(settlement.text.indexOf('<table id="related-entries"'));
  for (const entry of entries.json.data as { transfer_id: string }[]) expect(swept).toContain(`<code>${entry.transfer_id}</code>`);
  expect(entries.json.data.length).toBeGreaterThan(0);
  expect(settlement.text).not.toContain('0012345678901');
});

test('scope: a live id while in sandbox, another merchant\'s id and an id never issued are 404; in live, the live charge shows and the sandbox ones are 404', async () => {
  for (const id of [made.live, made.others, newId('charge'), newId('settlement'), 'txn_bad', 'evt_x']) {
    const res = await client.get(`/payments/${id}`);
    expect(res.status).toBe(404);
    expect(res.text).toBe('Not found in this environment.');
  }
  // The other merchant cannot open A's payments either.
  for (const id of [made.ok, made.refund, made.payout, made.dispute, made.settlement]) expect((await otherClient.get(`/payments/${id}`)).status).toBe(404);

  // A second session of A, switched to live.
  const live = await signedIn(m);
  const before = await live.get('/payments');
  const switched = await live.post('/environment', { csrf: PortalClient.csrfOf(before.text), environment: 'live', return: '/payments' });
  expect(switched.status).toBe(303);
  const liveList = await live.get('/payments');
  expect(liveList.text).toContain('<caption>Charges (live), newest first</caption>');
  expect(tableIds(liveList.text)).toEqual([made.live]);
  expect((await live.get(`/payments/${made.live}`)).status).toBe(200);
  expect((await live.get(`/payments/${made.ok}`)).status).toBe(404);
  expect(tableIds((await live.get('/payments?type=refunds')).text)).toEqual([]);
});

test('escaping by construction: a charge whose description, reference, metadata and customer name are markup shows them as text on its page and in the list, in text and in attributes', async () => {
  const script = '<script>alert(1)</script>';
  const attribute = 'x" onmouseover="alert(2)';
  const image = "'><img src=x onerror=alert(3)>";
  const merchant = await h.merchant();
  const id = await charge(merchant, {
    description: `${script} ${attribute}`,
    reference: `${attribute} ${image}`,
    metadata: { note: script, [`k"${image}`]: attribute },
    customer: { identifier: '233241234567', name: `${script}${attribute}` },
  });
  await h.settled(id);
  const hostileClient = await signedIn(merchant);
  /** No markup of the values got through: no script, no element the values name, no event-handler attribute. */
  const clean = (page: string) => {
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/<img/i);
    expect(page).not.toMatch(/\son(mouseover|error)\s*=/i);
  };

  const page = (await hostileClient.get(`/payments/${id}`)).text;
  clean(page);
  expect(page).toContain(`<dd id="field-description">${htmlEscaped(`${script} ${attribute}`)}</dd>`);
  expect(page).toContain(`<dd id="field-your_reference">${htmlEscaped(`${attribute} ${image}`)}</dd>`);
  expect(page).toContain(`<dd id="field-customer-name">${htmlEscaped(`${script}${attribute}`)}</dd>`);
  const metadata = /<pre id="metadata" class="pay-json">([^<]*)<\/pre>/.exec(page)?.[1];
  expect(metadata).toBe(htmlEscaped(JSON.stringify({ note: script, [`k"${image}`]: attribute }, null, 2)));

  // The list (the customer's name beside the masked number) and the reference filter echoed in its input's value.
  const list = (await hostileClient.get(`/payments?type=charges&reference=${encodeURIComponent(`${attribute} ${image}`)}`)).text;
  clean(list);
  expect(tableIds(list)).toEqual([id]);
  expect(list).toContain(`</span> ${htmlEscaped(`${script}${attribute}`)}</td>`);
  expect(list).toContain(`name="reference" maxlength="100" value="${htmlEscaped(`${attribute} ${image}`)}">`);
});

const sql = (text: string, params: unknown[] = []) => h.orm.em.getConnection().execute(text, params);

/** A statement of a day no other file imports (unique per product and day); its id. */
async function writeStatement(): Promise<string> {
  const id = newId('partnerStatement');
  const day = `19${String(10 + Math.floor(Math.random() * 90))}-0${1 + Math.floor(Math.random() * 9)}-1${Math.floor(Math.random() * 9)}`;
  await sql(`insert into partner_statements (id, product, statement_date, environment, source, line_count, matched) values (?, 'collection', ?::date, 'live', 'portal-payments.test', 1, 0)`, [id, day]);
  return id;
}

/** A break of the statement about the payment, as the import writes one, with a reason and partner data the merchant must never see. */
const writeBreak = (statementId: string, paymentId: string, merchantId: string, kind: string, status: 'open' | 'resolved') =>
  sql(
    `insert into reconciliation_breaks (id, statement_id, product, statement_date, environment, kind, reference_id, payment_id, merchant_id, amount, currency,
       partner_amount, partner_currency, partner_status, our_status, reason, status, resolved_by, resolved_reason, resolved_at)
     select ?, id, product, statement_date, 'live', ?, ?, ?, ?, 15000, 'GHS', '149.00', 'GHS', 'SUCCESSFUL', 'expired', ?, ?, ?, ?, ? from partner_statements where id = ?`,
    [
      newId('reconciliationBreak'),
      kind,
      `ref-${paymentId}`,
      paymentId,
      merchantId,
      `SECRET-REASON partner says SUCCESSFUL for ${paymentId}`,
      status,
      status === 'resolved' ? 'ops@example' : null,
      status === 'resolved' ? 'OPERATOR-NOTE checked' : null,
      status === 'resolved' ? new Date().toISOString() : null,
      statementId,
    ],
  );

/** Removes a statement written by writeStatement and its breaks. */
async function dropStatement(statementId: string): Promise<void> {
  await sql(`delete from reconciliation_breaks where statement_id = ?`, [statementId]);
  await sql(`delete from partner_statements where id = ?`, [statementId]);
}

/** A new session of the merchant, switched to live. */
/** A client's cookies for Chromium: `__Host-` ones as the portal sets them (Secure, Path=/, host-only; Chromium keeps Secure cookies of loopback http). */
const browserCookies = (c: PortalClient) =>
  [...c.cookies].map(([name, value]) => ({ name, value, domain: new URL(url).hostname, path: '/', secure: true, httpOnly: true, sameSite: 'Lax' as const }));

async function signedInLive(merchant: TestMerchant): Promise<PortalClient> {
  const live = await signedIn(merchant);
  const before = await live.get('/payments');
  expect((await live.post('/environment', { csrf: PortalClient.csrfOf(before.text), environment: 'live', return: '/payments' })).status).toBe(303);
  return live;
}

test('a payment under review (an open reconciliation break, late money not settled): its page says only that; none, a resolved break, settled late money or another merchant\'s row show no notice', async () => {
  const [withBreak, withLate, resolved, plain] = [
    (await writeLiveCharge(h, m, { reference: 'review-break' })).id,
    (await writeLiveCharge(h, m, { reference: 'review-late' })).id,
    (await writeLiveCharge(h, m, { reference: 'review-resolved' })).id,
    (await writeLiveCharge(h, m, { reference: 'review-none' })).id,
  ];
  const statementId = await writeStatement();
  await writeBreak(statementId, withBreak, m.id, 'amount_mismatch', 'open');
  await writeBreak(statementId, resolved, m.id, 'status_mismatch', 'resolved');
  // Another merchant's open break naming this payment: not this merchant's review.
  await writeBreak(statementId, plain, other.id, 'duplicate', 'open');
  const lateRow = (paymentId: string, settled: boolean) =>
    sql(
      `insert into late_answers (payment_id, kind, product, merchant_id, environment, partner_status, financial_transaction_id, amount, currency, our_status, recorded_at, settled_action, settled_by, settled_at)
       values (?, 'charge', 'collection', ?, 'live', 'SUCCESSFUL', 'FTX-SECRET-1', 15000, 'GHS', 'expired', now(), ?, ?, ?)`,
      [paymentId, m.id, settled ? 'accept' : null, settled ? 'ops@example' : null, settled ? new Date().toISOString() : null],
    );
  await lateRow(withLate, false);
  await lateRow(resolved, true);
  try {
    const live = await signedInLive(m);
    for (const id of [withBreak, withLate]) {
      const page = await live.get(`/payments/${id}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('<div class="notice pay-review" id="under-review" role="status" aria-labelledby="under-review-heading">');
      expect(page.text).toContain('<h2 id="under-review-heading">Under review</h2>');
      expect(page.text).toContain('Our team is checking this payment with the payment partner. Its status may change; you will get an event if it does.');
      // Only that it is under review: never the break's kind, reason, amounts, the partner's status or operator data.
      for (const secret of ['amount_mismatch', 'amount mismatch', 'SECRET-REASON', 'FTX-SECRET-1', 'SUCCESSFUL', '149.00', 'ops@example', 'reconciliation', 'late_answers', 'brk_', statementId]) {
        expect({ id, secret, shown: page.text.includes(secret) }).toEqual({ id, secret, shown: false });
      }
    }
    for (const id of [resolved, plain]) {
      const page = await live.get(`/payments/${id}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('under-review');
      expect(page.text).not.toContain('Under review');
      expect(page.text).not.toContain('OPERATOR-NOTE');
    }
    // A sandbox payment with none, and the other merchant cannot see the live one at all.
    expect((await client.get(`/payments/${made.ok}`)).text).not.toContain('under-review');
    expect((await otherClient.get(`/payments/${withBreak}`)).status).toBe(404);
  } finally {
    // Rows written around the stores (no late_funds posting): removed so the suite's ledger check holds.
    await sql(`delete from late_answers where payment_id in (?, ?)`, [withLate, resolved]);
    await dropStatement(statementId);
  }
});

describe('in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  test('the list and a payment page: no CSP or script error, and axe-core finds no serious or critical violation', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    const page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    const cookies = browserCookies(client);
    await context.addCookies(cookies);
    for (const path of ['/payments', '/payments?type=payouts&status=succeeded', `/payments/${made.ok}`, `/payments/${made.settlement}`]) {
      await page.goto(url + path);
      await page.locator('main').waitFor();
      expect(problems).toEqual([]);
    }
    await context.close();

    // axe runs through the DevTools protocol (test/support/axe.ts), with the pages' policy in force.
    const axeContext = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await axeContext.addCookies(cookies);
    const axePage = await axeContext.newPage();
    const shots: Record<string, string> = {
      '/payments': 'portal-payments.png',
      '/payments?type=refunds': 'portal-payments-refunds.png',
      '/payments?type=charges&status=paid': 'portal-payments-filter-refused.png',
      [`/payments/${made.ok}`]: 'portal-payment-charge.png',
      [`/payments/${made.settlement}`]: 'portal-payment-settlement.png',
      [`/payments/${made.dispute}`]: 'portal-payment-dispute.png',
    };
    for (const [path, shot] of Object.entries(shots)) {
      await axePage.goto(url + path);
      expect({ path, violations: await axeViolations(axePage) }).toEqual({ path, violations: [] });
      if (process.env.SCREENSHOTS_DIR) await axePage.screenshot({ path: pathModule.join(process.env.SCREENSHOTS_DIR, shot), fullPage: true });
    }
    // The tabs and filters work without script: choose a status and apply.
    await axePage.goto(`${url}/payments`);
    await axePage.getByLabel('Status').selectOption('failed');
    await axePage.getByRole('button', { name: 'Apply filters' }).click();
    await axePage.locator('#payments').waitFor();
    expect(new URL(axePage.url()).searchParams.get('status')).toBe('failed');
    expect(await axePage.locator('#payments tbody tr').count()).toBe(1);
    await axePage.getByRole('link', { name: 'Payouts' }).click();
    await axePage.locator('#tab-payouts[aria-current="page"]').waitFor();
    await axeContext.close();
  });

  test('a live payment under review: the notice breaks no CSP rule, and axe-core finds no serious or critical violation', async () => {
    const id = (await writeLiveCharge(h, m, { reference: 'review-browser' })).id;
    const statementId = await writeStatement();
    await writeBreak(statementId, id, m.id, 'status_mismatch', 'open');
    try {
      const live = await signedInLive(m);
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const problems: string[] = [];
      const page = await context.newPage();
      page.on('console', (msg) => {
        if (msg.type() === 'error') problems.push(msg.text());
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      await context.addCookies(browserCookies(live));
      await page.goto(`${url}/payments/${id}`);
      await page.getByRole('status').filter({ hasText: 'Under review' }).waitFor();
      expect(problems).toEqual([]);
      expect(await page.getByRole('heading', { name: 'Under review' }).count()).toBe(1);
      expect({ violations: await axeViolations(page) }).toEqual({ violations: [] });
      if (process.env.SCREENSHOTS_DIR) await page.screenshot({ path: pathModule.join(process.env.SCREENSHOTS_DIR, 'portal-payment-under-review.png'), fullPage: true });
      await context.close();
    } finally {
      await dropStatement(statementId);
    }
  });
});
