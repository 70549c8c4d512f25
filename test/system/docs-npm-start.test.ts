/**
 * The reference site as `npm start` wires it (src/main.ts): the web port serves /docs, the console
 * targets the sandbox listener, and the sandbox allows by CORS exactly WEB_PUBLIC_URL's origin; the
 * live listener allows none. (docs-site.test.ts covers the rest against the apps themselves.)
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

test('/docs on the web port; the sandbox allows WEB_PUBLIC_URL by CORS, the live listener no origin', async () => {
  const web = `http://127.0.0.1:${s.env.WEB_PORT}`;
  const sandbox = `http://127.0.0.1:${s.env.PORT}`;
  const live = `http://127.0.0.1:${s.env.LIVE_PORT}`;
  const key = demoKey(s);

  const docs = await fetch(`${web}/docs/console`);
  expect(docs.status).toBe(200);
  expect(await docs.text()).toContain(`data-api-base="${sandbox}"`);

  // The reference renders the document main.ts hands the web port, the same the API serves.
  expect(await (await fetch(`${web}/docs`)).text()).toContain('data-spec-url="/docs/openapi.json"');
  const spec = await fetch(`${web}/docs/openapi.json`);
  expect(spec.status).toBe(200);
  expect(await spec.json()).toEqual(await (await fetch(`${sandbox}/v1/openapi.json`, { headers: { connection: 'close' } })).json());

  const fromWeb = await fetch(`${sandbox}/v1/balances`, { headers: { origin: web, authorization: `Bearer ${key}`, connection: 'close' } });
  expect(fromWeb.status).toBe(200);
  expect(fromWeb.headers.get('access-control-allow-origin')).toBe(web);
  const preflight = await fetch(`${sandbox}/v1/charges`, { method: 'OPTIONS', headers: { origin: web, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key', connection: 'close' } });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(web);

  const other = await fetch(`${sandbox}/v1/balances`, { headers: { origin: 'http://elsewhere.example', authorization: `Bearer ${key}`, connection: 'close' } });
  expect(other.headers.get('access-control-allow-origin')).toBeNull();
  const livePreflight = await fetch(`${live}/v1/charges`, { method: 'OPTIONS', headers: { origin: web, 'access-control-request-method': 'POST', connection: 'close' } });
  expect([...livePreflight.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
}, 60_000);
