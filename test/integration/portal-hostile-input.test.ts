import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { startHarness, type Harness } from '../support/harness';
import { signedInUser } from '../support/portal-web';
import { PortalClient } from '../support/portal-client';
import { createWebApp } from '../../src/web/app';
import { portalRouter } from '../../src/web/portal/router';
import { attemptKeyOf } from '../../src/persistence/portal/sign-in-attempts';

/**
 * Issue 47, finding 4: a NUL in a form field or in a path id answered 500 and wrote an error-level
 * log line, unauthenticated at sign-in. Now every form field with a control character is refused with
 * 400 before anything is looked up (src/web/form-body.ts), and every portal route's `:id` has the
 * shape of an issued id before its route runs (src/web/portal/router.ts): 404, no query, no error.
 * The routes are read from the portal's router itself, so a route added later is covered too.
 */

let h: Harness;
let url: string;
let server: http.Server;
const logLines: { level: number; msg: string }[] = [];

beforeAll(async () => {
  h = await startHarness({ worker: false });
  const log = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line) as { level: number; msg: string }) });
  server = http.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on('request', createWebApp({ ...h.deps, log }, { webUrl: url, sandboxApiUrl: h.urls.sandbox }).callback());
});
afterAll(async () => {
  await new Promise<void>((ok) => server?.close(() => ok()));
  await h?.close();
});

const errorLines = () => logLines.filter((line) => line.level >= 50);

test('a control character in any sign-in field is refused with 400 before anything is counted or looked up, and logs no error', async () => {
  const email = `nul-${Date.now()}@shop.example`;
  const cases: Record<string, string>[] = [
    { email: `${email}\u0000`, password: 'whatever-password' },
    { email, password: 'pass\u0000word' },
    { email, password: 'pass\u001bword' },
    { email, password: 'pass\rword' },
    { email, password: 'x', 'fie\u0000ld': 'y' },
  ];
  for (const fields of cases) {
    const client = new PortalClient(url);
    const page = await client.get('/sign-in');
    const res = await client.post('/sign-in', { csrf: PortalClient.csrfOf(page.text), ...fields });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/control character/);
  }
  const counted = await h.orm.em.getConnection().execute(`select 1 from portal_sign_in_attempts where key = ?`, [attemptKeyOf(email)]);
  expect(counted).toHaveLength(0);
  expect(errorLines()).toEqual([]);
});

test('a signed-in form with a control character changes nothing: the environment switch stays in the sandbox', async () => {
  const m = await h.merchant();
  const { client } = await signedInUser(url, h.orm, m.id);
  const csrf = PortalClient.csrfOf((await client.get('/payments')).text);
  const refused = await client.post('/environment', { csrf, environment: 'live\u0000' });
  expect(refused.status).toBe(400);
  const sessions = await h.orm.em.getConnection().execute<{ environment: string }[]>(
    `select s.environment from portal_sessions s join portal_users u on u.id = s.user_id where u.merchant_id = ? and s.revoked_at is null`,
    [m.id],
  );
  expect(sessions.map((s) => s.environment)).toEqual(['sandbox']);
  // Tab and newline stay allowed (the API's rule), so the same form with a clean value works.
  expect((await client.post('/environment', { csrf, environment: 'live' })).status).toBe(303);
  expect(errorLines()).toEqual([]);
});

test("every portal route with an :id answers 404 for an id that was never issued (NUL, quote, other shapes), signed in, without an error", async () => {
  const m = await h.merchant();
  const { client } = await signedInUser(url, h.orm, m.id);
  const { csrf, environment } = PortalClient.formOf((await client.get('/webhooks')).text);
  const routes = portalRouter(h.deps, { webUrl: url, sandboxApiUrl: h.urls.sandbox }).stack.filter((layer) => layer.paramNames.some((p) => p.name === 'id'));
  // The pages that take an id today: payments, events, webhooks (endpoints and deliveries), API keys, users.
  expect(routes.length).toBeGreaterThanOrEqual(12);
  const badIds = ['usr_%00', '%00', "key_'--", `txn_${'A'.repeat(23)}%00`, 'we_' + 'a'.repeat(500), 'dlv_%E2%80%AE'];
  for (const layer of routes) {
    for (const method of layer.methods.filter((m) => m === 'GET' || m === 'POST')) {
      for (const bad of badIds) {
        const path = String(layer.path).replace(':id', bad);
        const res = method === 'GET' ? await client.get(path) : await client.post(path, { csrf, environment });
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      }
    }
  }
  expect(errorLines()).toEqual([]);
});
