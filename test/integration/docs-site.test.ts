import fs from 'node:fs';
import * as verifier from '../../src/verifier';
import { FAILURE_CLASSES } from '../../src/domain/failure-classes';
import { DOCS_PAGES } from '../../src/web/docs/layout';
import { startDocsSite, type DocsSite } from '../support/docs-site';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';

/**
 * The reference site over HTTP (issue 21): every page, its assets served from this server, no
 * remote URL anywhere; CORS: the sandbox listener allows the reference site's origin and no other
 * (not the portal's either), the live listener no origin at all. Issue 47: the site on its own
 * origin (DOCS_PORT), the web port redirecting its old paths there.
 */

let h: Harness;
let site: DocsSite;
let m: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  site = await startDocsSite(h.deps);
  m = await h.merchant();
});
afterAll(async () => {
  await site?.close();
  await h?.close();
});

const HEADINGS: Record<string, string> = {
  '/docs': 'API reference',
  '/docs/console': 'Request console',
  '/docs/guides/charges': 'Charges',
  '/docs/guides/webhooks': 'Webhooks and signature checking',
  '/docs/guides/events': 'The event log',
  '/docs/guides/sandbox': 'Sandbox outcomes',
};

async function get(path: string): Promise<{ status: number; type: string | null; csp: string | null; text: string }> {
  const res = await fetch(site.docsUrl + path);
  return { status: res.status, type: res.headers.get('content-type'), csp: res.headers.get('content-security-policy'), text: await res.text() };
}

test('every page: 200 HTML in English with its heading, the site navigation, and only local scripts and stylesheets', async () => {
  expect(DOCS_PAGES.map((p) => p.path)).toEqual(Object.keys(HEADINGS));
  const sandboxOrigin = new URL(site.urls.sandbox).origin;
  for (const { path } of DOCS_PAGES) {
    const page = await get(path);
    expect({ path, status: page.status, type: page.type }).toEqual({ path, status: 200, type: 'text/html; charset=utf-8' });
    expect(page.text).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(page.text).toContain(`<h1>${HEADINGS[path]}</h1>`);
    expect(page.text).toContain('<nav aria-label="Documentation">');
    for (const p of DOCS_PAGES) expect(page.text).toContain(`href="${p.path}"`);
    expect(page.text).toContain(`<a href="${path}" aria-current="page">`);
    // No inline script, and every script and stylesheet from /docs/assets/ on this server.
    expect(page.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    for (const [, src] of page.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) expect(src).toMatch(/^\/docs\/assets\/[\w.-]+$/);
    for (const [, href] of page.text.matchAll(/<link[^>]*\shref="([^"]+)"/g)) expect(href).toMatch(/^\/docs\/assets\/[\w.-]+$/);
    // No remote URL: the only absolute URLs are the sandbox API's (the console's target, the document).
    for (const [url] of page.text.matchAll(/\b(?:https?:)?\/\/[^\s"'<>)`]+/g)) expect({ path, url: new URL(url, site.docsUrl).origin }).toEqual({ path, url: sandboxOrigin });
    // The site's own policy: nothing but this server and the sandbox API; no `https:` wildcard.
    expect(page.csp).toMatch(/default-src 'self'/);
    expect(page.csp!.split('; ')).toContain(path === '/docs' ? "connect-src 'self'" : `connect-src 'self' ${sandboxOrigin}`);
    expect(page.csp).toMatch(/script-src 'self';/);
    expect(page.csp).not.toMatch(/https:|\*/);
    expect(page.csp).toMatch(/frame-ancestors 'none'/);
  }
  expect((await get('/docs/guides/no-such-guide')).status).toBe(404);
  // The console's form is never sent here: its fields have no name, and a POST is not served.
  const consolePage = (await get('/docs/console')).text;
  expect(consolePage).not.toMatch(/<(?:input|select|textarea)[^>]*\sname=/);
  expect(consolePage).toMatch(/<input id="console-key" type="password" autocomplete="off"/);
  expect((await fetch(`${site.docsUrl}/docs/console`, { method: 'POST', body: 'x' })).status).toBe(405);
  expect((await get('/docs/assets/..%2Fpackage.json')).status).toBe(404);
});

test('assets: Redoc from node_modules (the pinned version), our scripts and stylesheet, with their types', async () => {
  const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
  expect(pkg.dependencies.redoc).toMatch(/^\d+\.\d+\.\d+$/);
  expect(JSON.parse(fs.readFileSync(require.resolve('redoc/package.json'), 'utf8')).version).toBe(pkg.dependencies.redoc);
  const redoc = await fetch(`${site.docsUrl}/docs/assets/redoc.standalone.js`);
  expect(redoc.status).toBe(200);
  expect(redoc.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
  expect(Buffer.from(await redoc.arrayBuffer()).equals(fs.readFileSync(require.resolve('redoc/bundles/redoc.standalone.js')))).toBe(true);
  for (const [name, type] of [
    ['reference.js', 'application/javascript; charset=utf-8'],
    ['console.js', 'application/javascript; charset=utf-8'],
    ['docs.css', 'text/css; charset=utf-8'],
  ]) {
    const asset = await get(`/docs/assets/${name}`);
    expect({ name, status: asset.status, type: asset.type }).toEqual({ name, status: 200, type });
    expect(asset.text).not.toMatch(/https?:\/\//);
  }
});

test('the reference renders the OpenAPI document served here, the same as the API listeners serve; only the reference may use inline styles and a blob worker (Redoc)', async () => {
  const reference = await get('/docs');
  expect(reference.text).toContain('data-spec-url="/docs/openapi.json"');
  const here = await get('/docs/openapi.json');
  expect({ status: here.status, type: here.type }).toEqual({ status: 200, type: 'application/json; charset=utf-8' });
  const sandbox = await fetch(`${site.urls.sandbox}/v1/openapi.json`);
  expect(sandbox.status).toBe(200);
  expect(JSON.parse(here.text)).toEqual(await sandbox.json());
  expect(JSON.parse(here.text).openapi).toBe('3.1.0');
  expect(reference.csp).toMatch(/style-src 'self' 'unsafe-inline'/);
  expect(reference.csp).toMatch(/worker-src 'self' blob:/);
  for (const path of ['/docs/console', '/docs/guides/charges']) {
    const page = await get(path);
    expect(page.csp).toMatch(/style-src 'self';/);
    expect(page.csp).not.toContain('blob:');
  }
});

test('the guides: the sandbox outcomes table has every failure class; the webhooks guide uses the real verifier', async () => {
  const sandbox = (await get('/docs/guides/sandbox')).text;
  expect(sandbox).toContain('<table>');
  for (const outcome of ['succeed', 'pending', 'indeterminate', ...FAILURE_CLASSES]) expect(sandbox).toContain(`<td><code>${outcome}</code>`);
  expect(sandbox).not.toContain('{{OUTCOMES}}');

  const webhooks = (await get('/docs/guides/webhooks')).text;
  const imported = /import \{ ([\w, ]+) \} from 'payment-engine\/verifier'/.exec(webhooks);
  expect(imported).not.toBeNull();
  for (const name of imported![1].split(', ')) expect({ name, exported: name in verifier }).toEqual({ name, exported: true });
  expect(JSON.parse(fs.readFileSync('package.json', 'utf8')).exports['./verifier']).toBeDefined();
  for (const reason of ['missing_header', 'malformed_header', 'no_matching_signature', 'timestamp_out_of_tolerance', 'malformed_payload']) expect(webhooks).toContain(reason);

  const events = (await get('/docs/guides/events')).text;
  expect(events).toContain('/v1/events?after_sequence=0&amp;limit=100');
});

test('without the document given to the web app, the reference loads the sandbox listener\'s, which allows the web origin', async () => {
  const bare = await startDocsSite(h.deps, { withDocument: false });
  try {
    const res = await fetch(`${bare.docsUrl}/docs`);
    const sandboxOrigin = new URL(bare.urls.sandbox).origin;
    expect(await res.text()).toContain(`data-spec-url="${sandboxOrigin}/v1/openapi.json"`);
    expect(res.headers.get('content-security-policy')!.split('; ')).toContain(`connect-src 'self' ${sandboxOrigin}`);
    expect((await fetch(`${bare.docsUrl}/docs/openapi.json`)).status).toBe(404);
    const spec = await fetch(`${bare.urls.sandbox}/v1/openapi.json`, { headers: { origin: bare.docsUrl } });
    expect(spec.status).toBe(200);
    expect(spec.headers.get('access-control-allow-origin')).toBe(bare.docsUrl);
  } finally {
    await bare.close();
  }
});

const ACCESS_CONTROL = (headers: Headers) => [...headers.keys()].filter((k) => k.startsWith('access-control-'));

test('CORS: the sandbox allows the reference site\'s origin (preflight and answer), refuses any other; the live listener allows none', async () => {
  const preflight = (url: string, origin: string) =>
    fetch(`${url}/v1/charges`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' } });

  const allowed = await preflight(site.urls.sandbox, site.docsUrl);
  expect(allowed.status).toBe(204);
  expect(allowed.headers.get('access-control-allow-origin')).toBe(site.docsUrl);
  expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
  expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']));
  expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();

  const answer = await fetch(`${site.urls.sandbox}/v1/balances`, { headers: { origin: site.docsUrl, authorization: `Bearer ${m.testKey}` } });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('access-control-allow-origin')).toBe(site.docsUrl);
  expect(answer.headers.get('access-control-expose-headers')?.split(',')).toEqual(expect.arrayContaining(['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
  // An error answer is readable by the console too.
  const refused = await fetch(`${site.urls.sandbox}/v1/balances`, { headers: { origin: site.docsUrl, authorization: 'Bearer svc_test_nope' } });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('access-control-allow-origin')).toBe(site.docsUrl);

  for (const other of ['http://evil.example', 'http://127.0.0.1:1', site.docsUrl.replace('127.0.0.1', 'localhost'), site.webUrl, 'null']) {
    const res = await preflight(site.urls.sandbox, other);
    expect({ other, headers: ACCESS_CONTROL(res.headers) }).toEqual({ other, headers: [] });
    const get = await fetch(`${site.urls.sandbox}/v1/balances`, { headers: { origin: other, authorization: `Bearer ${m.testKey}` } });
    expect({ other, headers: ACCESS_CONTROL(get.headers) }).toEqual({ other, headers: [] });
  }

  // Live: given the same option, and the harness's live listener: no CORS header for any origin.
  for (const live of [site.urls.live, h.urls.live]) {
    for (const origin of [site.docsUrl, 'http://evil.example']) {
      const res = await preflight(live, origin);
      expect({ live, origin, headers: ACCESS_CONTROL(res.headers) }).toEqual({ live, origin, headers: [] });
      const get = await fetch(`${live}/v1/balances`, { headers: { origin, authorization: `Bearer ${m.liveKey}` } });
      expect({ live, origin, headers: ACCESS_CONTROL(get.headers) }).toEqual({ live, origin, headers: [] });
    }
  }
});

test('issue 47: the reference site is on its own origin; the portal\'s web port serves none of it and redirects every old /docs path there', async () => {
  expect(new URL(site.docsUrl).origin).not.toBe(new URL(site.webUrl).origin);
  const oldPaths = [...DOCS_PAGES.map((p) => p.path), '/docs/', '/docs/openapi.json', '/docs/assets/docs.css', '/docs/assets/redoc.standalone.js', '/docs/guides/charges?x=1#top'];
  for (const path of oldPaths) {
    const res = await fetch(site.webUrl + path, { redirect: 'manual' });
    const target = `${site.docsUrl}${path.split('#')[0]}`;
    expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({ path, status: 302, location: target });
    expect(await res.text()).not.toContain('<script');
  }
  // A redirect names the setting's origin, never the request's Host.
  const spoofed = await fetch(`${site.webUrl}/docs`, { redirect: 'manual', headers: { host: 'evil.example' } });
  expect(spoofed.headers.get('location')).toBe(`${site.docsUrl}/docs`);
  // Followed, an old link lands on the page, with the site's own CSP (the reference page's 'unsafe-inline' there only).
  const followed = await fetch(`${site.webUrl}/docs`);
  expect(followed.url).toBe(`${site.docsUrl}/docs`);
  expect(followed.headers.get('content-security-policy')).toContain("style-src 'self' 'unsafe-inline'");
  // The portal's pages never carry 'unsafe-inline'; the reference site serves no portal page.
  const signIn = await fetch(`${site.webUrl}/sign-in`);
  expect(signIn.status).toBe(200);
  expect(signIn.headers.get('content-security-policy')).not.toContain('unsafe-inline');
  for (const portalPath of ['/sign-in', '/payments', '/checkout/x']) {
    const res = await fetch(site.docsUrl + portalPath, { redirect: 'manual' });
    expect({ portalPath, status: res.status }).toEqual({ portalPath, status: 404 });
  }
  // The site's root leads to the reference.
  const root = await fetch(`${site.docsUrl}/`, { redirect: 'manual' });
  expect({ status: root.status, location: root.headers.get('location') }).toEqual({ status: 302, location: '/docs' });
  // Every answer of the site has the strict defaults (nosniff, no framing).
  const asset = await fetch(`${site.docsUrl}/docs/assets/docs.css`);
  expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
  expect(asset.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
});
