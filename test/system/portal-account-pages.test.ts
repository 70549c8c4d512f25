import fs from 'node:fs';
import os from 'node:os';
import path_ from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import { applyLiveLimits } from '../../src/persistence/merchants/live-limits-store';
import { csvCell, csvLine } from '../../src/web/portal/balances-csv';
import { formatMoney, majorDecimal } from '../../src/web/portal/balances-money';
import { indentJson } from '../../src/web/portal/events-page';
import { axeViolations } from '../support/axe';
import { launchChromium } from '../support/chromium';
import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { PortalClient } from '../support/portal-client';
import { signedInUser, startPortalWeb, type PortalWeb } from '../support/portal-web';
import { runCli } from '../support/run-cli';
import { accept, draftCharge } from '../support/stored-charges';

/**
 * The merchant portal's Events, Balances and Settings pages (src/web/portal/events-*, balances-*,
 * settings-*) over HTTP, against the suite's PostgreSQL and Temporal with the payments worker: each
 * page shows what the API answers for the session's merchant and environment (GET /v1/events,
 * /v1/balances, /v1/balance-transactions walked to the end) and nothing of another merchant or the
 * other environment; the CSV export has every matching row, quoted and formula-safe; Settings shows
 * what `merchants set` stored, the account number masked. Then axe-core in Chromium on each page.
 */

/** Screenshots of the pages (SCREENSHOTS_DIR when set, else a temporary folder). */
const SHOTS = process.env.SCREENSHOTS_DIR ? path_.resolve(process.env.SCREENSHOTS_DIR) : fs.mkdtempSync(path_.join(os.tmpdir(), 'payments-portal-pages-'));

let h: Harness;
let web: PortalWeb;
let url: string;

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  web = await startPortalWeb(h, { rateLimits: { sandbox: 7, live: 70 } });
  url = web.url;
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

const todayUtc = () => new Date().toISOString().slice(0, 10);

function ok(res: ApiResponse): any {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${res.status}: ${res.text}`);
  return res.json;
}
const api = (m: TestMerchant, path: string, env: 'sandbox' | 'live' = 'sandbox') => h.request(env, 'GET', path, { key: env === 'sandbox' ? m.testKey : m.liveKey });
const post = (m: TestMerchant, path: string, body: unknown) => h.request('sandbox', 'POST', path, { key: m.testKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });

/** A merchant, a portal user of it, and a signed-in client (sandbox). */
async function signedIn(): Promise<{ m: TestMerchant; client: PortalClient; email: string; password: string }> {
  const m = await h.merchant();
  return { m, ...(await signedInUser(url, h.orm, m.id)) };
}

/** A sandbox charge through the API, its timers advanced until its workflow has finished. */
async function succeededCharge(m: TestMerchant, overrides: Record<string, unknown> = {}): Promise<any> {
  const charge = ok(await post(m, '/v1/charges', chargeBody(overrides)));
  const handle = h.temporal.client.workflow.getHandle(charge.id);
  for (let i = 0; i < 200; i++) {
    const res = await post(m, `/v1/sandbox/advance/${charge.id}`, undefined);
    if (res.status === 200) continue;
    if (res.status !== 409) throw new Error(`advance: ${res.status} ${res.text}`);
    if ((await handle.describe()).status.name !== 'RUNNING') break;
    await delay(100);
  }
  const done = ok(await api(m, `/v1/charges/${charge.id}`));
  expect(done.status).toBe('succeeded');
  return done;
}

/** Every event of GET /v1/events?after_sequence=, oldest first, walked to the end. */
async function apiEvents(m: TestMerchant, env: 'sandbox' | 'live' = 'sandbox'): Promise<any[]> {
  const out: any[] = [];
  for (let after = 0; ; ) {
    const page = ok(await api(m, `/v1/events?after_sequence=${after}&limit=100`, env));
    out.push(...page.data);
    if (!page.has_more) return out;
    after = page.data[page.data.length - 1].sequence;
  }
}

/** Every item of GET /v1/balance-transactions (with `query`), newest first, walked to the end. */
async function apiBalanceTransactions(m: TestMerchant, query = ''): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = ok(await api(m, `/v1/balance-transactions?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`));
    out.push(...page.data);
    if (!page.has_more) return out;
    cursor = page.next_cursor;
  }
}

const unescape = (text: string) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
/** The rows (`data-sequence`, first link) of the events table. */
const eventRows = (page: string) => [...page.matchAll(/<tr data-sequence="(\d+)"><td>\d+<\/td><td><a href="\/events\/([^"]+)">/g)].map((r) => ({ sequence: Number(r[1]), id: r[2]! }));
const nextLink = (page: string) => /<a href="([^"]+)" id="next"/.exec(page)?.[1];
const nextPageLink = (page: string) => /<a href="([^"]+)" id="next-page"/.exec(page)?.[1];
const btRows = (page: string) => [...page.matchAll(/<tr data-id="([^"]+)">/g)].map((r) => unescape(r[1]!));

/** RFC 4180 records (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let field = '';
  let row: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  expect(field).toBe('');
  expect(row).toEqual([]);
  return rows;
}

test('signed out, every page and the export redirect to the sign-in page', async () => {
  const anonymous = new PortalClient(url);
  for (const path of ['/events', '/events?from=3', '/events/evt_000000000000000000000000', '/balances', '/balances/transactions.csv', '/settings']) {
    const res = await anonymous.get(path);
    expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({ path, status: 302, location: '/sign-in' });
  }
});

describe('Events', () => {
  test("walked by sequence as GET /v1/events walks it: Next continues without gaps or repeats; another merchant's and the live environment's events never appear", async () => {
    const { m, client } = await signedIn();
    const other = await h.merchant();
    // 30 sandbox charges through the API: at least 30 events (more as their workflows move on).
    for (let i = 0; i < 30; i++) ok(await post(m, '/v1/charges', chargeBody({ reference: `ev-${i}` })));
    const otherCharge = ok(await post(other, '/v1/charges', chargeBody()));
    // A live charge of the same merchant (stored: the harness has no live rail).
    await accept(h.orm, draftCharge(m.id, 5_000, { environment: 'live' }));
    const live = await apiEvents(m, 'live');
    expect(live.length).toBe(1);
    const otherEvents = await apiEvents(other);
    expect(otherEvents.some((e) => e.resource_id === otherCharge.id)).toBe(true);

    const expected = await apiEvents(m);
    expect(expected.length).toBeGreaterThanOrEqual(30);
    // The portal's walk: from the first page, Next after Next.
    const seen: { sequence: number; id: string }[] = [];
    let path: string | undefined = '/events';
    let first = '';
    for (let pages = 0; path && pages < 20; pages++) {
      const page = await client.get(path);
      expect(page.status).toBe(200);
      if (!first) first = page.text;
      expect(page.text).toContain('<table id="events">');
      for (const e of [...otherEvents, ...live]) expect(page.text).not.toContain(e.id);
      seen.push(...eventRows(page.text));
      path = nextLink(page.text);
    }
    expect(path).toBeUndefined();
    // Gapless, no repeats, starting at 1; the API's events (walked before) are its beginning, in order.
    expect(seen.map((e) => e.sequence)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.slice(0, expected.length)).toEqual(expected.map((e) => ({ sequence: e.sequence, id: e.id })));
    expect(seen.length).toBeGreaterThan(25); // more than one page
    // A charge's event links to its payment page; the table has a caption and column headers.
    const charge = expected.find((e) => e.resource_type === 'transaction')!;
    expect(first).toContain(`<a href="/payments/${charge.resource_id}">${charge.resource_id}</a>`);
    expect(first).toMatch(/<caption>Events from sequence 1, oldest first<\/caption>/);
    expect(first).toContain('<th scope="col">Sequence</th>');
    expect(first).toMatch(/<label for="from-sequence">[^<]+<\/label>\s*<input type="number"[^>]*name="from" id="from-sequence"/);

    // Start at a sequence: that one first.
    const from = await client.get('/events?from=7');
    expect(eventRows(from.text)[0]).toEqual({ sequence: 7, id: expected[6].id });
    expect(from.text).toContain('value="7"');
    // Strict: not a whole number of 1 or more is 400 with a message, nothing shown.
    for (const bad of ['0', '-1', 'abc', '1.5', '01', '99999999999999999']) {
      const res = await client.get(`/events?from=${encodeURIComponent(bad)}`);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.text).toContain('id="message"');
      expect(eventRows(res.text)).toEqual([]);
    }

    // One event: its JSON exactly as the API answers it.
    const detail = await client.get(`/events/${charge.id}`);
    expect(detail.status).toBe(200);
    const pre = /<pre id="event-json"[^>]*>([\s\S]*?)<\/pre>/.exec(detail.text)![1]!;
    expect(JSON.parse(unescape(pre))).toEqual(charge);
    expect(detail.text).toContain(`<dd id="event-sequence">${charge.sequence}</dd>`);
    // Another merchant's event, a live one, an unknown one and a malformed id: 404 alike.
    for (const id of [otherEvents[0].id, live[0].id, 'evt_000000000000000000000000', 'nope', '%3Cscript%3E']) {
      const res = await client.get(`/events/${id}`);
      expect({ id, status: res.status }).toEqual({ id, status: 404 });
      expect(res.text).toBe('Not found in this environment.');
    }

    // Switched to live: the live event only, and its page opens.
    const switched = await client.post('/environment', { csrf: PortalClient.csrfOf(first), environment: 'live', return: '/events' });
    expect(switched.status).toBe(303);
    const livePage = await client.get('/events');
    expect(eventRows(livePage.text)).toEqual([{ sequence: 1, id: live[0].id }]);
    expect(livePage.text).not.toContain(expected[0].id);
    expect(nextLink(livePage.text)).toBeUndefined();
    expect((await client.get(`/events/${live[0].id}`)).status).toBe(200);
    expect((await client.get(`/events/${charge.id}`)).status).toBe(404);
  });

  test('the JSON layout keeps every literal as written (no number is reparsed)', () => {
    const text = '{"a":[1,{"b":"x,{]\\"y"}],"big":12345678901234567890,"e":{},"l":[]}';
    const laid = indentJson(text);
    expect(laid).toBe('{\n  "a": [\n    1,\n    {\n      "b": "x,{]\\"y"\n    }\n  ],\n  "big": 12345678901234567890,\n  "e": {},\n  "l": []\n}');
    expect(laid.replace(/\n\s*/g, '').replace(/": /g, '":')).toBe(text);
  });
});

describe('Balances', () => {
  let m: TestMerchant;
  let client: PortalClient;
  let other: TestMerchant;
  let charge: any;

  beforeAll(async () => {
    ({ m, client } = await signedIn());
    other = await h.merchant();
    await fundMerchant(h, other.id, 77_700);
    // 120 fundings (more than one page of the store's walk), a second currency, and a charge
    // collected through the API with a formula-looking description.
    for (let i = 0; i < 120; i++) await fundMerchant(h, m.id, 1_000 + i);
    await fundMerchant(h, m.id, 250_000, 'NGN');
    charge = await succeededCharge(m, { amount: 300_000, description: '=1+1', reference: '=HYPERLINK("x")' });
  });

  test('the balances are those of GET /v1/balances; the chart has the last 30 UTC days, today at the available balance with the charge in it', async () => {
    const balances = ok(await api(m, '/v1/balances'));
    const page = await client.get('/balances');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<table id="balances">');
    const rows = [...page.text.matchAll(/<tr data-currency="([A-Z]{3})" data-available="(-?\d+)" data-pending="(-?\d+)" data-reserved="(-?\d+)">/g)].map((r) => ({
      currency: r[1],
      available: Number(r[2]),
      pending: Number(r[3]),
      reserved: Number(r[4]),
    }));
    const figure = (list: { currency: string; amount: number }[], c: string) => list.find((b) => b.currency === c)!.amount;
    expect(rows).toEqual(balances.available.map((b: any) => ({ currency: b.currency, available: b.amount, pending: figure(balances.pending, b.currency), reserved: figure(balances.reserved, b.currency) })));
    expect(rows.map((r) => r.currency)).toEqual(['GHS', 'NGN']);
    const ghs = figure(balances.available, 'GHS');
    expect(page.text).toContain(`<td class="num">${formatMoney(ghs, 'GHS', new Map([['GHS', 2]]))}</td>`);

    // The chart (GHS first): 30 bars and 30 rows, the last one today, at the available balance.
    expect(page.text).toMatch(/<svg id="balance-chart" class="chart" role="img" aria-labelledby="balance-chart-title balance-chart-desc"/);
    const chart = /<svg id="balance-chart"[\s\S]*?<\/svg>/.exec(page.text)![0];
    expect(chart.match(/<rect /g)).toHaveLength(30);
    const days = [...page.text.matchAll(/<tr data-day="(\d{4}-\d{2}-\d{2})" data-close="(-?\d+)">/g)].map((r) => ({ day: r[1]!, close: Number(r[2]) }));
    expect(days).toHaveLength(30);
    expect(days[29]!.day).toBe(todayUtc());
    expect(new Date(`${days[0]!.day}T00:00:00Z`).getTime()).toBe(new Date(`${todayUtc()}T00:00:00Z`).getTime() - 29 * 86_400_000);
    expect(days[29]!.close).toBe(ghs);
    // Everything moved today: the days before closed at 0; today's movement holds the charge's net.
    expect(days.slice(0, 29).every((d) => d.close === 0)).toBe(true);
    const chargeItem = (await apiBalanceTransactions(m, `&source=${charge.id}`)).find((i) => i.balance === 'available')!;
    expect(chargeItem.net).toBeGreaterThan(0);
    const fundings = Array.from({ length: 120 }, (_, i) => 1_000 + i).reduce((a, b) => a + b, 0);
    expect(days[29]!.close).toBe(fundings + chargeItem.net);
    expect(page.text).toContain('Each bar is the <strong>available</strong> balance at the end of a UTC day');
    // Two currencies: a labelled currency select; NGN's chart on asking.
    expect(page.text).toMatch(/<label for="chart-currency">[^<]+<\/label>\s*<select name="chart" id="chart-currency">/);
    const ngn = await client.get('/balances?chart=NGN');
    expect([...ngn.text.matchAll(/<tr data-day="[^"]+" data-close="(-?\d+)">/g)].map((r) => Number(r[1])).at(-1)).toBe(250_000);
    expect((await client.get('/balances?chart=XXX')).status).toBe(400);
  });

  test('balance transactions: the pages of the table, Next page after Next page, are exactly the API list; filters as the API; bad filters are 400', async () => {
    const expected = (await apiBalanceTransactions(m)).map((i) => i.id);
    expect(expected.length).toBe(122); // 120 + 1 fundings, the charge's capture
    const seen: string[] = [];
    let path: string | undefined = '/balances';
    for (let pages = 0; path && pages < 20; pages++) {
      const page = await client.get(unescape(path));
      expect(page.status).toBe(200);
      expect(page.text).not.toContain(other.id);
      const rows = btRows(page.text);
      expect(rows.length).toBeLessThanOrEqual(25);
      seen.push(...rows);
      path = nextPageLink(page.text);
    }
    expect(seen).toEqual(expected);

    const filtered = await client.get(`/balances?type=charge&currency=NGN`);
    expect(btRows(filtered.text)).toEqual((await apiBalanceTransactions(m, '&type=charge&currency=NGN')).map((i) => i.id));
    const bySource = await client.get(`/balances?source=${charge.id}`);
    expect(btRows(bySource.text)).toEqual((await apiBalanceTransactions(m, `&source=${charge.id}`)).map((i) => i.id));
    expect(bySource.text).toContain(`<a href="/payments/${charge.id}">${charge.id}</a>`);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(btRows((await client.get(`/balances?from=${tomorrow}`)).text)).toEqual([]);
    expect(btRows((await client.get(`/balances?from=${todayUtc()}&to=${todayUtc()}`)).text)).toEqual(expected.slice(0, 25));
    for (const bad of ['type=bogus', 'currency=XYZ', 'source=txn_1', 'from=2026-02-30', `from=${tomorrow}&to=${todayUtc()}`, 'cursor=abc', 'type=charge&type=fee']) {
      const res = await client.get(`/balances?${bad}`);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.text).toContain('role="alert" id="message"');
      expect(btRows(res.text)).toEqual([]);
    }
    // Every filter control is labelled.
    for (const id of ['filter-type', 'filter-currency', 'filter-source', 'filter-from', 'filter-to']) expect(filtered.text).toContain(`<label for="${id}">`);
    // The export is a POST carrying the page's filters (and its environment and CSRF token).
    expect(filtered.text).toContain('<form method="post" action="/balances/transactions.csv" id="export-form"><input type="hidden" name="environment" value="sandbox"><input type="hidden" name="csrf" value="');
    expect(filtered.text).toMatch(/id="export-form">[^]*?<input type="hidden" name="type" value="charge"><input type="hidden" name="currency" value="NGN"><button type="submit" class="secondary" id="export-csv">/);
  });

  test('CSV export (a POST from the page): the attachment, a header and exactly the rows the API lists (all pages), amounts in major units, quoted and formula-safe', async () => {
    const form = PortalClient.formOf((await client.get('/balances')).text);
    const res = await client.post('/balances/transactions.csv', form);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="balance-transactions-sandbox-${todayUtc()}.csv"`);
    const text = res.text;
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual(['id', 'created_at', 'type', 'source', 'balance', 'currency', 'amount', 'fee', 'net']);
    const expected = await apiBalanceTransactions(m);
    expect(rows).toEqual(expected.map((i) => [i.id, i.created_at, i.type, i.source, i.balance, i.currency, ...[i.amount, i.fee, i.net].map((a: number) => (a / 100).toFixed(2))]));
    expect(rows.length).toBe(122);
    expect(text).not.toContain(other.id);

    // The same filters as the page, and as the API.
    const filtered = parseCsv((await client.post('/balances/transactions.csv', { ...form, type: 'charge', currency: 'NGN' })).text);
    expect(filtered.slice(1).map((r) => r[0])).toEqual((await apiBalanceTransactions(m, '&type=charge&currency=NGN')).map((i) => i.id));
    const none = await client.post('/balances/transactions.csv', { ...form, from: '2099-01-01' });
    expect(none.text).toBe('id,created_at,type,source,balance,currency,amount,fee,net\r\n');
    const bad = await client.post('/balances/transactions.csv', { ...form, type: 'bogus' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/^Type must be one of/);
    // A GET (an old link) exports nothing: it shows the page with its filters. Nor does a POST without the CSRF token or from another environment's page.
    const get = await client.get('/balances/transactions.csv?type=charge');
    expect({ status: get.status, location: get.headers.get('location') }).toEqual({ status: 303, location: '/balances?type=charge' });
    expect(get.text).not.toContain('id,created_at');
    expect((await client.post('/balances/transactions.csv', { environment: form.environment })).status).toBe(403);
    expect((await client.post('/balances/transactions.csv', { ...form, environment: 'live' })).status).toBe(409);

    // Each export is an audited action (with its filters; the refused one is not an export).
    const exports = await h.orm.em.getConnection().execute<{ operator: string; state_after: { filters: Record<string, string> }; request_id: string }[]>(
      `select operator, state_after, request_id from operator_audit where merchant_id = ? and action = 'portal.export_balance_transactions' order by created_at`,
      [m.id],
    );
    expect(exports.map((e) => e.state_after.filters)).toEqual([{}, { type: 'charge', currency: 'NGN' }, { from: '2099-01-01' }]);
    expect(exports[0]!.operator).toMatch(/^portal:/);
    expect(exports[0]!.request_id).toBe(res.headers.get('request-id'));

    // Another merchant's export: only its own row.
    const { client: otherClient } = await signedInUser(url, h.orm, other.id);
    const otherRows = parseCsv((await otherClient.post('/balances/transactions.csv', PortalClient.formOf((await otherClient.get('/balances')).text))).text).slice(1);
    expect(otherRows.map((r) => r[6])).toEqual(['777.00']);
  });

  test('CSV cells: RFC 4180 quoting; a value a spreadsheet would run as a formula is text; plain negative numbers stay numbers', () => {
    // No value of a balance transaction is free text (ids, types, ISO dates, amounts), so the charge's "=1+1" description never reaches the export: the cell function is checked here.
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('-1+2')).toBe("'-1+2");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('-400.00')).toBe('-400.00');
    expect(csvCell('-7')).toBe('-7');
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('plain')).toBe('plain');
    expect(csvLine(['a', '=b', 'c,d'])).toBe("a,'=b,\"c,d\"\r\n");
    expect(parseCsv(csvLine(['x "y"', '=1', '-5.00', 'a\r\nb']))).toEqual([['x "y"', "'=1", '-5.00', 'a\r\nb']]);
    // Major units, exactly (past 2^53 too) and by the currency's minor units.
    const units = new Map([
      ['GHS', 2],
      ['UGX', 0],
    ]);
    expect(majorDecimal(-40_000, 'GHS', units)).toBe('-400.00');
    expect(majorDecimal(5, 'GHS', units)).toBe('0.05');
    expect(majorDecimal('123456789012345678901', 'GHS', units)).toBe('1234567890123456789.01');
    expect(majorDecimal(1500, 'UGX', units)).toBe('1500');
    expect(formatMoney(-123456789, 'GHS', units)).toBe('GHS -1,234,567.89');
  });
});

describe('Settings', () => {
  test('shows what `merchants set` stored (the account number masked, never whole), the live limits and today\'s usage, verification and the rate limit, and where each is changed', async () => {
    const { m, client } = await signedIn();
    const before = await client.get('/settings');
    expect(before.status).toBe(200);
    expect(before.text).toContain('<dd id="settlement-account">None yet');
    expect(before.text).toContain('<p id="live-limits-none">No limit set in any currency.</p>');
    expect(before.text).not.toContain('<table id="live-limits">');
    expect(before.text).toMatch(/<dd id="verified">Not yet/);

    const number = '0123456789012';
    const who = ['--reason', 'onboarding', '--operator', 'ama@ops'];
    expect((await runCli(h.taskQueue, 'merchants', 'set', m.id, '--notification-email', "fin'ance&ops@shop.example", ...who)).code).toBe(0);
    const first = await runCli(h.taskQueue, 'merchants', 'set', m.id, '--settlement-bank', 'GCB', '--settlement-account', '0123456781111', ...who);
    expect(first.code).toBe(0);
    // The first account holds nothing.
    expect((await client.get('/settings')).text).not.toContain('id="settlement-hold"');
    // A replaced account holds the live settlements (issue 43): the page says until when.
    const set = await runCli(
      h.taskQueue,
      'merchants', 'set', m.id,
      '--settlement-bank', 'GCB', '--settlement-account', number,
      '--live-max-amount', 'GHS:500000', '--live-daily-limit', 'GHS:2000000,UGX:90000000',
      ...who,
    );
    expect(set.code).toBe(0);
    const stored = JSON.parse(set.stdout);
    expect(stored.settlement_account).toEqual({ bank_code: 'GCB', account_masked: expect.any(String) });
    expect(stored.settlement_account.account_masked).not.toContain(number);
    expect(stored.settlement_held_until).toEqual(expect.any(String));
    await runCli(h.taskQueue, 'merchants', 'verify', m.id, ...who);
    // Today's live usage, as a live charge's create counts it.
    await h.orm.em.fork().transactional((em) => applyLiveLimits(em, m.id, 'charge', 123_400, 'GHS'));
    await h.orm.em.fork().transactional((em) => applyLiveLimits(em, m.id, 'payout', 7_000, 'KES'));

    const page = await client.get('/settings');
    expect(page.status).toBe(200);
    const name = (await h.orm.em.getConnection().execute<{ name: string }[]>('select name from merchants where id = ?', [m.id]))[0]!.name;
    expect(page.text).toContain(`<dd id="merchant-name">${name}</dd>`);
    expect(page.text).toContain(`<dd id="merchant-id"><code>${m.id}</code></dd>`);
    expect(page.text).toContain(`GCB Bank (GCB), account <span id="settlement-account-masked">${stored.settlement_account.account_masked}</span>`);
    expect(page.text).not.toContain(number);
    expect(page.text).not.toContain(number.slice(0, 9));
    expect(page.text).toContain('<dd id="notification-email">fin&#39;ance&amp;ops@shop.example');
    expect(page.text).toContain(`<dd id="settlement-hold"><strong>Held until <time datetime="${stored.settlement_held_until}">`);
    expect(page.text).toContain('live settlements wait a cooling period, as a safeguard against account takeover');
    expect((await client.get('/balances')).text).not.toContain('id="settlement-hold"');
    // One row per currency with a limit or used today, each in its own currency.
    expect(page.text).not.toContain('live-limits-none');
    expect(page.text).toContain(
      '<tr id="live-limits-GHS"><th scope="row">GHS</th><td class="live-max-amount">GHS 5,000.00</td><td class="live-daily-limit">GHS 20,000.00</td><td class="live-usage-charges">GHS 1,234.00</td><td class="live-usage-payouts">GHS 0.00</td></tr>',
    );
    expect(page.text).toContain('<tr id="live-limits-KES"><th scope="row">KES</th><td class="live-max-amount">No limit</td><td class="live-daily-limit">No limit</td><td class="live-usage-charges">KES 0.00</td><td class="live-usage-payouts">KES 70.00</td></tr>');
    expect(page.text).toContain('<tr id="live-limits-UGX"><th scope="row">UGX</th><td class="live-max-amount">No limit</td><td class="live-daily-limit">UGX 90,000,000</td>');
    expect(page.text).toMatch(/<dd id="verified">Yes, since <time datetime="\d{4}-/);
    expect(page.text).toContain('7 requests per second per merchant on the sandbox API');
    expect(page.text).toContain(`merchants set ${m.id} --settlement-bank CODE --settlement-account NUMBER`);
    expect(page.text).toContain(`merchants set ${m.id} --live-max-amount CUR:N --live-daily-limit CUR:N`);
    // Read only: no form other than the header's.
    expect(page.text.match(/<form /g)).toHaveLength(2);

    // Another merchant's user sees its own settings only.
    const other = await signedIn();
    const theirs = await other.client.get('/settings');
    expect(theirs.text).toContain(`<dd id="merchant-id"><code>${other.m.id}</code></dd>`);
    expect(theirs.text).not.toContain(m.id);
    expect(theirs.text).not.toContain(stored.settlement_account.account_masked);
    // Live: the same account settings, the live rate limit.
    const live = await client.post('/environment', { csrf: PortalClient.csrfOf(page.text), environment: 'live', return: '/settings' });
    expect(live.status).toBe(303);
    expect((await client.get('/settings')).text).toContain('70 requests per second per merchant on the live API');
    // The live Balances page says the live settlements are held, and until when (issue 43); the sandbox one does not.
    expect((await client.get('/balances')).text).toContain(`<p class="notice" role="status" id="settlement-hold"><strong>Live settlements are held until <time datetime="${stored.settlement_held_until}">`);
  });
});

describe('in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('axe-core finds no serious or critical violation on Events, an event, Balances and Settings, and nothing is blocked by the CSP', async () => {
    const { m, email, password } = await signedIn();
    await succeededCharge(m, { amount: 42_000 });
    await fundMerchant(h, m.id, 10_000, 'NGN');
    const eventId = (await apiEvents(m))[0].id;
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const blocked: string[] = [];
    const page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') blocked.push(msg.text());
    });
    await page.goto(`${url}/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/payments$|\/$/);
    const found: string[] = [];
    for (const path of ['/events', `/events/${eventId}`, '/balances', '/settings']) {
      await page.goto(`${url}${path}`);
      await page.screenshot({ path: path_.join(SHOTS, `portal${path.replace(/\/evt_.*/, '-event').replace(/\//g, '-')}.png`), fullPage: true });
      found.push(...(await axeViolations(page)).map((v) => `${path}: ${v}`));
    }
    // The chart's figures, opened.
    await page.goto(`${url}/balances`);
    await page.locator('#chart-figures summary').click();
    found.push(...(await axeViolations(page)).map((v) => `/balances (figures open): ${v}`));
    expect(found).toEqual([]);
    await context.close();

    // Without bypassing the CSP: no violation reported on any page (no inline style or script).
    const strict = await browser.newContext();
    const strictPage = await strict.newPage();
    const violations: string[] = [];
    strictPage.on('console', (msg) => {
      if (msg.type() === 'error') violations.push(msg.text());
    });
    await strictPage.goto(`${url}/sign-in`);
    await strictPage.getByLabel('Email').fill(email);
    await strictPage.getByLabel('Password').fill(password);
    await strictPage.getByRole('button', { name: 'Sign in' }).click();
    await strictPage.waitForURL(/\/payments$|\/$/);
    for (const path of ['/events', `/events/${eventId}`, '/balances', '/settings']) await strictPage.goto(`${url}${path}`);
    expect(violations.filter((v) => /Content Security Policy/i.test(v))).toEqual([]);
    await strict.close();
    expect(blocked.filter((v) => /Content Security Policy/i.test(v))).toEqual([]);
  });
});
