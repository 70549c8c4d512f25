/**
 * The reference site as `npm start` wires it (src/main.ts): on its own port (DOCS_PORT, issue 47), the
 * web port redirecting /docs there; the console targets the sandbox listener, and the sandbox allows
 * by CORS exactly DOCS_PUBLIC_URL's origin (not the portal's); the live listener allows none.
 * (docs-site.test.ts covers the rest against the apps themselves.)
 */
import { cleanUp, demoKey, ready, startMain, type StartedMain } from '../support/npm-start';

let s: StartedMain;

beforeAll(async () => {
  s = await startMain();
  await ready(s);
}, 180_000);
afterAll(async () => {
  if (s) await cleanUp(s);
});

test('/docs on its own port (the web port redirects there); the sandbox allows DOCS_PUBLIC_URL by CORS, not the portal\'s origin; the live listener no origin', async () => {
  const web = `http://127.0.0.1:${s.env.WEB_PORT}`;
  const docsOrigin = `http://127.0.0.1:${s.env.DOCS_PORT}`;
  const sandbox = `http://127.0.0.1:${s.env.PORT}`;
  const live = `http://127.0.0.1:${s.env.LIVE_PORT}`;
  const key = demoKey(s);
  expect(s.output().stdout).toContain(`API reference ${docsOrigin}/docs`);

  const docs = await fetch(`${docsOrigin}/docs/console`);
  expect(docs.status).toBe(200);
  expect(await docs.text()).toContain(`data-api-base="${sandbox}"`);
  const moved = await fetch(`${web}/docs/console`, { redirect: 'manual' });
  expect({ status: moved.status, location: moved.headers.get('location') }).toEqual({ status: 302, location: `${docsOrigin}/docs/console` });

  // The reference renders the document main.ts hands the site, the same the API serves.
  expect(await (await fetch(`${docsOrigin}/docs`)).text()).toContain('data-spec-url="/docs/openapi.json"');
  const spec = await fetch(`${docsOrigin}/docs/openapi.json`);
  expect(spec.status).toBe(200);
  expect(await spec.json()).toEqual(await (await fetch(`${sandbox}/v1/openapi.json`, { headers: { connection: 'close' } })).json());

  const fromDocs = await fetch(`${sandbox}/v1/balances`, { headers: { origin: docsOrigin, authorization: `Bearer ${key}`, connection: 'close' } });
  expect(fromDocs.status).toBe(200);
  expect(fromDocs.headers.get('access-control-allow-origin')).toBe(docsOrigin);
  const preflight = await fetch(`${sandbox}/v1/charges`, { method: 'OPTIONS', headers: { origin: docsOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key', connection: 'close' } });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(docsOrigin);

  for (const origin of ['http://elsewhere.example', web]) {
    const other = await fetch(`${sandbox}/v1/balances`, { headers: { origin, authorization: `Bearer ${key}`, connection: 'close' } });
    expect({ origin, allowed: other.headers.get('access-control-allow-origin') }).toEqual({ origin, allowed: null });
  }
  const livePreflight = await fetch(`${live}/v1/charges`, { method: 'OPTIONS', headers: { origin: docsOrigin, 'access-control-request-method': 'POST', connection: 'close' } });
  expect([...livePreflight.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
}, 60_000);
