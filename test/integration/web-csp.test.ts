import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDocsApp } from '../../src/web/docs/app';
import { docsCsp } from '../../src/web/docs/csp';
import { startHarness, type Harness } from '../support/harness';
import { signedInUser, startPortalWeb, type PortalWeb } from '../support/portal-web';

/**
 * Issue 30: the web port's Content-Security-Policy is written out in full (src/web/csp.ts), not
 * helmet's defaults (which add `style-src https: 'unsafe-inline'`, `font-src https: data:` and
 * `frame-ancestors 'self'`). The exact header of a portal page, a checkout page and the reference
 * site's pages (their own policy, src/web/docs/csp.ts). The browser tests (portal-browser,
 * checkout-browser, docs-browser, web-walk-browser) load every page under these policies in Chromium.
 */

let h: Harness;
let web: PortalWeb;
let secure: PortalWeb;
/** The reference site's own listener (DOCS_PORT, issue 47). */
let docs: http.Server;
let docsUrl: string;

/** The portal's and checkout's policy: 'self' for everything, no script attribute, no other origin. */
const WEB_CSP =
  "default-src 'self';base-uri 'self';object-src 'none';frame-ancestors 'none';form-action 'self';script-src 'self';script-src-attr 'none';style-src 'self';img-src 'self';font-src 'self'";

beforeAll(async () => {
  h = await startHarness({ worker: false });
  web = await startPortalWeb(h);
  secure = await startPortalWeb(h, { webUrl: 'https://pay.example.com' });
  docs = http.createServer();
  await new Promise<void>((ok) => docs.listen(0, '127.0.0.1', ok));
  docsUrl = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
  docs.on('request', createDocsApp(h.deps, { webUrl: web.url, sandboxApiUrl: h.urls.sandbox, docsUrl }).callback());
});
afterAll(async () => {
  docs?.closeAllConnections();
  await new Promise((ok) => (docs ? docs.close(ok) : ok(undefined)));
  await secure?.close();
  await web?.close();
  await h?.close();
});

const cspOf = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { redirect: 'manual', headers });
  await res.text();
  return { status: res.status, type: res.headers.get('content-type'), csp: res.headers.get('content-security-policy') };
};

test('a portal page (signed out and in) and a checkout page: exactly the web port’s policy', async () => {
  const m = await h.merchant();
  const { client } = await signedInUser(web.url, h.orm, m.id);
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  expect(await cspOf(`${web.url}/sign-in`)).toEqual({ status: 200, type: 'text/html; charset=utf-8', csp: WEB_CSP });
  for (const path of ['/payments', '/balances', '/webhooks', '/developers/api-keys', '/settings']) {
    expect({ path, ...(await cspOf(`${web.url}${path}`, { cookie })) }).toEqual({ path, status: 200, type: 'text/html; charset=utf-8', csp: WEB_CSP });
  }
  // A checkout page (a link that is not, or no longer, valid: the page a customer's browser gets), and a 404.
  const checkout = await cspOf(`${web.url}/checkout/${'A'.repeat(43)}`);
  expect(checkout.type).toBe('text/html; charset=utf-8');
  expect(checkout.csp).toBe(WEB_CSP);
  expect((await cspOf(`${web.url}/no-such-page`)).csp).toBe(WEB_CSP);
  // Served over https (WEB_PUBLIC_URL): the same, and insecure requests upgraded.
  expect((await cspOf(`${secure.url}/sign-in`)).csp).toBe(`${WEB_CSP};upgrade-insecure-requests`);
});

test('the reference site’s pages: exactly their own policy (the reference alone allows inline styles and a blob worker, for Redoc)', async () => {
  const sandbox = new URL(h.urls.sandbox).origin;
  const page = "default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; script-src 'self'; script-src-attr 'none'; style-src 'self'; img-src 'self' data:; font-src 'self'";
  expect(await cspOf(`${docsUrl}/docs/guides/charges`)).toEqual({ status: 200, type: 'text/html; charset=utf-8', csp: `${page}; connect-src 'self' ${sandbox}` });
  expect((await cspOf(`${docsUrl}/docs/console`)).csp).toBe(`${page}; connect-src 'self' ${sandbox}`);
  expect((await cspOf(`${docsUrl}/docs`)).csp).toBe(docsCsp({ sandboxApiUrl: h.urls.sandbox, webUrl: docsUrl, reference: true, toSandbox: true }));
  // Its own origin: the portal's web port answers none of it (no redirect is set up on this one: 404).
  expect((await cspOf(`${web.url}/docs`)).status).toBe(404);
  expect((await cspOf(`${docsUrl}/docs`)).csp).toBe(
    `default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self' ${sandbox}; worker-src 'self' blob:`,
  );
});
