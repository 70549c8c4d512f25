/**
 * Hostile bodies on the web port's forms (issue 32, "Hostile bodies and headers"): the portal's
 * sign-in, a portal form behind a session (registering a webhook endpoint) and the hosted checkout's
 * decision. Each hostile body is answered with its 4xx and the web port's plain page (as the port's
 * other refusals, e.g. an expired form's 403), and changes nothing: no sign-in attempt counted, no
 * session, no endpoint, the checkout token unused and the charge still waiting. Choices
 * (src/web/form-body.ts, docs/security.md "Hostile input"):
 * - bytes or percent-escapes that are not UTF-8: 400 (never read as U+FFFD);
 * - a field that is read as one value sent twice: 400 (a checkout's `decision=approve&decision=decline`
 *   is neither); a list field (`event`, `scope`) may repeat;
 * - a field named `__proto__` or `constructor`: 400, as in the API's bodies;
 * - more than 256 fields (the forms' "huge array"): 400; over 16 KiB: 413;
 * - a JSON body, deep or not, is no form: the port's answer to a form it cannot read (403 on the
 *   portal, the checkout page again with 400).
 * Forms carry no numbers: the numeric rules of the API's bodies have no counterpart here.
 * Headers, slowloris and bodies that never end on this port: hostile-connections.test.ts.
 */
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { createLimitedServer, DEFAULT_SERVER_LIMITS } from '../../src/http/server-limits';
import { createWebApp } from '../../src/web/app';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { tokenOf } from '../support/checkout-web';
import { PortalClient } from '../support/portal-client';
import { signedInUser } from '../support/portal-web';

let h: Harness;
let server: http.Server;
let url: string;
let m: TestMerchant;

beforeAll(async () => {
  h = await startHarness();
  m = await h.merchant();
  server = createLimitedServer((req, res) => app(req, res), DEFAULT_SERVER_LIMITS, 'web');
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = createWebApp(h.deps, { webUrl: url, sandboxApiUrl: h.urls.sandbox }).callback();
  h.deps.webUrl = url; // checkout links of new charges open this listener
});
let app: http.RequestListener = (_req, res) => res.end();
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
  await h?.close();
});

const sql = async (text: string, params: unknown[] = []) => Number((await h.orm.em.getConnection().execute<{ n: number }[]>(text, params))[0].n);

/** A form post with exactly these bytes, as a browser on the port would send it (same Origin). */
async function post(path: string, body: string | Buffer, cookies: Map<string, string> = new Map(), contentType = 'application/x-www-form-urlencoded'): Promise<{ status: number; text: string; headers: Headers }> {
  const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(url + path, { method: 'POST', redirect: 'manual', headers: { 'content-type': contentType, origin: url, ...(cookie ? { cookie } : {}) }, body });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** The web port's plain refusal page, with its request id. */
function expectPlainRefusal(res: { status: number; text: string; headers: Headers }, status: number, says: RegExp): void {
  expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status, type: 'text/plain; charset=utf-8' });
  expect(res.text).toMatch(says);
  expect(res.text).toContain(res.headers.get('request-id')!);
}

/** `text` with `bytes` where `@@` is. */
const withBytes = (text: string, bytes: number[]) => {
  const [head, tail] = text.split('@@');
  return Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]);
};

interface HostileForm {
  name: string;
  /** The form's body from its valid fields (`valid`, urlencoded) */
  body: (valid: string) => string | Buffer;
  status: number;
  says: RegExp;
}

const HOSTILE_FORMS: HostileForm[] = [
  { name: 'a byte 0xFF', body: (valid) => withBytes(`${valid}&note=a@@b`, [0xff]), status: 400, says: /not valid UTF-8/ },
  { name: 'an overlong encoding (0xC0 0xAF)', body: (valid) => withBytes(`note=@@&${valid}`, [0xc0, 0xaf]), status: 400, says: /not valid UTF-8/ },
  { name: 'a percent-escape that is not UTF-8 (%FF)', body: (valid) => `${valid}&note=%FF`, status: 400, says: /percent-encoded UTF-8/ },
  { name: 'an escaped lone surrogate (%ED%A0%80)', body: (valid) => `note=%ED%A0%80&${valid}`, status: 400, says: /percent-encoded UTF-8/ },
  { name: 'a __proto__ field', body: (valid) => `__proto__=x&${valid}`, status: 400, says: /"__proto__" is not allowed/ },
  { name: 'a constructor field', body: (valid) => `${valid}&constructor=x`, status: 400, says: /"constructor" is not allowed/ },
  { name: 'an escaped __proto__ name (%5F%5Fproto%5F%5F)', body: (valid) => `${valid}&%5F%5Fproto%5F%5F=x`, status: 400, says: /"__proto__" is not allowed/ },
  { name: '300 fields (a huge list)', body: (valid) => `${valid}&${Array.from({ length: 300 }, (_, i) => `f${i}=1`).join('&')}`, status: 400, says: /more than 256 fields/ },
  { name: 'a body over 16 KiB', body: (valid) => `${valid}&pad=${'x'.repeat(17 * 1024)}`, status: 413, says: /larger than 16384 bytes/ },
];

describe('POST /sign-in', () => {
  const attempts = () => sql('select count(*)::int as n from portal_sign_in_attempts');
  const sessions = () => sql('select count(*)::int as n from portal_sessions');
  let user: { email: string; password: string };
  let page: PortalClient;
  let valid: string;

  beforeAll(async () => {
    const signed = await signedInUser(url, h.orm, m.id);
    user = signed;
    page = new PortalClient(url);
    const form = await page.get('/sign-in');
    valid = new URLSearchParams({ csrf: PortalClient.csrfOf(form.text), email: user.email, password: user.password }).toString();
  });

  test.each(HOSTILE_FORMS)('$name → $status, nothing counted, no session', async (row) => {
    const [a, s] = [await attempts(), await sessions()];
    const res = await post('/sign-in', row.body(valid), page.cookies);
    expectPlainRefusal(res, row.status, row.says);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect([await attempts(), await sessions()]).toEqual([a, s]);
  });

  test('the email given twice (a real one and another) → 400, nothing counted, no session', async () => {
    const [a, s] = [await attempts(), await sessions()];
    const res = await post('/sign-in', `${valid}&email=${encodeURIComponent('other@shop.example')}`, page.cookies);
    expectPlainRefusal(res, 400, /"email" was sent more than once/);
    expect([await attempts(), await sessions()]).toEqual([a, s]);
  });

  test('a JSON body, nested 10,000 deep, is no form: 403 as any form the port cannot read', async () => {
    const res = await post('/sign-in', '['.repeat(10_000) + ']'.repeat(10_000), page.cookies, 'application/json');
    expect(res.status).toBe(403);
  });

  test('the same valid form signs in (the control)', async () => {
    const res = await post('/sign-in', valid, page.cookies);
    expect(res.status).toBe(303);
  });
});

describe('a portal form behind a session: POST /webhooks (register an endpoint)', () => {
  const endpoints = () => sql('select count(*)::int as n from webhook_endpoints where merchant_id = ?', [m.id]);
  let client: PortalClient;
  let valid: string;

  beforeAll(async () => {
    ({ client } = await signedInUser(url, h.orm, m.id));
    const form = PortalClient.formOf((await client.get('/webhooks')).text);
    valid = new URLSearchParams({ ...form, url: 'https://example.com/hook', description: 'hostile' }).toString();
  });

  test.each(HOSTILE_FORMS)('$name → $status, no endpoint', async (row) => {
    const res = await post('/webhooks', row.body(valid), client.cookies);
    expectPlainRefusal(res, row.status, row.says);
    expect(await endpoints()).toBe(0);
  });

  test('the url given twice → 400, no endpoint', async () => {
    const res = await post('/webhooks', `${valid}&url=${encodeURIComponent('https://example.com/other')}`, client.cookies);
    expectPlainRefusal(res, 400, /"url" was sent more than once/);
    expect(await endpoints()).toBe(0);
  });

  test('the csrf token given twice → 400, no endpoint', async () => {
    const res = await post('/webhooks', `${valid}&csrf=x`, client.cookies);
    expectPlainRefusal(res, 400, /"csrf" was sent more than once/);
    expect(await endpoints()).toBe(0);
  });
});

describe('POST /checkout/{token} (hosted checkout)', () => {
  let token: string;
  let chargeId: string;
  const unused = async () => sql('select count(*)::int as n from checkout_tokens where charge_id = ? and used_at is null and decision is null', [chargeId]);
  const status = async () => (await h.request('sandbox', 'GET', `/v1/charges/${chargeId}`, { key: m.testKey })).json.status;

  beforeAll(async () => {
    const body = chargeBody({ channel: 'bank', momo_network_id: undefined, amount: 20000, customer: { identifier: 'GH0012345678', name: 'Esi' } });
    const created = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(created.status).toBe(200);
    chargeId = created.json.id;
    expect(created.json.action.url.startsWith(`${url}/checkout/`)).toBe(true);
    token = tokenOf(created.json.action.url);
  });

  test.each(HOSTILE_FORMS)('$name → $status, the token unused, the charge still waiting', async (row) => {
    const res = await post(`/checkout/${token}`, row.body('decision=approve'));
    expectPlainRefusal(res, row.status, row.says);
    expect(await unused()).toBe(1);
    expect(await status()).toBe('awaiting_action');
  });

  test('decision=approve&decision=decline → 400: neither is taken', async () => {
    const res = await post(`/checkout/${token}`, 'decision=approve&decision=decline');
    expectPlainRefusal(res, 400, /"decision" was sent more than once/);
    const reversed = await post(`/checkout/${token}`, 'decision=decline&decision=approve');
    expectPlainRefusal(reversed, 400, /"decision" was sent more than once/);
    expect(await unused()).toBe(1);
    expect(await status()).toBe('awaiting_action');
  });

  test('a JSON body with a decision is no form: the checkout page again, 400, nothing decided', async () => {
    const res = await post(`/checkout/${token}`, '{"decision":"approve","decision":"approve"}', new Map(), 'application/json');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await unused()).toBe(1);
  });

  test('the same token still decides with a clean form (the control)', async () => {
    const res = await post(`/checkout/${token}`, 'decision=decline');
    expect(res.status).toBe(200);
    expect((await h.settled(chargeId)).status).toBe('failed');
  });
});
