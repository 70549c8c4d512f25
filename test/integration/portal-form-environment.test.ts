import { startHarness, type Harness, type TestMerchant } from '../support/harness';
import { PortalClient } from '../support/portal-client';
import { signedInUser, startPortalWeb, type PortalWeb } from '../support/portal-web';

/**
 * Issue 30: a portal form acts only in the environment it was opened in. A sandbox tab left open
 * after the session switched to live (in another tab) cannot create a live key or webhook endpoint:
 * the POST is refused with a clear message and nothing changes; a form without its environment is
 * refused too; the form of the environment the session is in works.
 */

let h: Harness;
let web: PortalWeb;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  web = await startPortalWeb(h);
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

const count = async (table: 'api_keys' | 'webhook_endpoints' | 'operator_audit', m: TestMerchant, environment: string): Promise<number> =>
  Number((await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from ${table} where merchant_id = ? and environment = ?`, [m.id, environment]))[0]!.n);
const counts = async (m: TestMerchant) => ({
  sandboxKeys: await count('api_keys', m, 'sandbox'),
  liveKeys: await count('api_keys', m, 'live'),
  sandboxEndpoints: await count('webhook_endpoints', m, 'sandbox'),
  liveEndpoints: await count('webhook_endpoints', m, 'live'),
});

/** A signed-in user's sandbox pages (keys, webhooks) as a tab holds them, then the session switched to live (as another tab does). */
async function sandboxTabThenLive(): Promise<{ m: TestMerchant; client: PortalClient; keysPage: string; webhooksPage: string }> {
  const m = await h.merchant();
  const { client } = await signedInUser(web.url, h.orm, m.id);
  const keysPage = (await client.get('/developers/api-keys')).text;
  const webhooksPage = (await client.get('/webhooks')).text;
  const switched = await client.post('/environment', { csrf: PortalClient.csrfOf(keysPage), environment: 'live' });
  expect(switched.status).toBe(303);
  return { m, client, keysPage, webhooksPage };
}

test('every changing form carries the environment it was opened in, next to its CSRF token', async () => {
  const { keysPage, webhooksPage } = await sandboxTabThenLive();
  expect(PortalClient.formOf(keysPage).environment).toBe('sandbox');
  expect(PortalClient.formOf(webhooksPage).environment).toBe('sandbox');
  for (const page of [keysPage, webhooksPage]) {
    const forms = [...page.matchAll(/<form method="post" action="([^"]+)"[^>]*>([^]*?)<\/form>/g)];
    for (const [, action, body] of forms) {
      if (action === '/environment' || action === '/sign-out') continue;
      expect({ action, guarded: body!.startsWith('\n<input type="hidden" name="environment" value="sandbox"><input type="hidden" name="csrf"') || body!.startsWith('<input type="hidden" name="environment" value="sandbox"><input type="hidden" name="csrf"') }).toEqual({ action, guarded: true });
    }
  }
});

test('a key or endpoint form opened in sandbox, sent after the session switched to live, is refused (409) and creates nothing', async () => {
  const { m, client, keysPage, webhooksPage } = await sandboxTabThenLive();
  const before = { ...(await counts(m)), audit: await count('operator_audit', m, 'live') };

  const key = await client.post('/developers/api-keys', { ...PortalClient.formOf(keysPage), scope: 'charges:read' });
  expect(key.status).toBe(409);
  expect(key.text).toContain('This form was opened in sandbox, but you are now in live. Nothing was changed. Reload the page to act in live.');
  expect(key.text).toContain('<a href="/developers/api-keys" id="reload-section">');
  expect(key.text).not.toContain('id="secret"');

  const endpoint = await client.post('/webhooks', { ...PortalClient.formOf(webhooksPage), url: 'https://hooks.example.com/x' });
  expect(endpoint.status).toBe(409);
  expect(endpoint.text).toContain('This form was opened in sandbox, but you are now in live. Nothing was changed.');
  expect(endpoint.text).not.toContain('id="secret"');

  // A form without the field (an old page, a hand-made post) is refused too.
  const bare = await client.post('/developers/api-keys', { csrf: PortalClient.formOf(keysPage).csrf, scope: 'charges:read' });
  expect(bare.status).toBe(400);
  expect(bare.text).toContain('This form does not say which environment (sandbox or live) it was opened in. Nothing was changed.');
  const odd = await client.post('/webhooks', { csrf: PortalClient.formOf(webhooksPage).csrf, environment: 'staging', url: 'https://hooks.example.com/x' });
  expect(odd.status).toBe(400);

  expect({ ...(await counts(m)), audit: await count('operator_audit', m, 'live') }).toEqual(before);
});

test('the form of the environment the session is in works: a live key from the live page, a sandbox key and endpoint from the sandbox page', async () => {
  const { m, client } = await sandboxTabThenLive();
  const before = await counts(m);
  const livePage = (await client.get('/developers/api-keys')).text;
  expect(PortalClient.formOf(livePage).environment).toBe('live');
  const live = await client.post('/developers/api-keys', { ...PortalClient.formOf(livePage), scope: 'charges:read' });
  expect(live.status).toBe(200);
  expect(live.text).toMatch(/<output id="secret" class="secret">svc_live_/);

  const back = await client.post('/environment', { csrf: PortalClient.csrfOf(livePage), environment: 'sandbox' });
  expect(back.status).toBe(303);
  const sandboxKeys = (await client.get('/developers/api-keys')).text;
  expect((await client.post('/developers/api-keys', { ...PortalClient.formOf(sandboxKeys), scope: 'charges:read' })).status).toBe(200);
  const sandboxHooks = (await client.get('/webhooks')).text;
  const endpoint = await client.post('/webhooks', { ...PortalClient.formOf(sandboxHooks), url: 'http://127.0.0.1:9/hook' });
  expect(endpoint.status).toBe(200);
  expect(endpoint.text).toContain('id="secret"');
  expect(await counts(m)).toEqual({ ...before, liveKeys: before.liveKeys + 1, sandboxKeys: before.sandboxKeys + 1, sandboxEndpoints: before.sandboxEndpoints + 1 });
});
