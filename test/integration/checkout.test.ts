/**
 * Hosted checkout (docs/checkout.md) over HTTP: the create answer's action and single-use url, the
 * pages on the web port, approve / decline / the card's challenge, and the links that can decide
 * nothing any more (used, expired, unknown), against the real database, Temporal and worker.
 */
import { createHash } from 'node:crypto';
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';
import { postForm, startCheckoutWeb, tokenOf, type CheckoutWeb } from '../support/checkout-web';

let h: Harness;
let web: CheckoutWeb;
let merchant: TestMerchant;
let merchantName: string;

const card = (overrides: Record<string, unknown> = {}) =>
  chargeBody({ channel: 'card', momo_network_id: undefined, currency: 'USD', amount: 10000, customer: { identifier: '4242424242424242', name: 'Kofi' }, ...overrides });
const bank = (overrides: Record<string, unknown> = {}) =>
  chargeBody({ channel: 'bank', momo_network_id: undefined, amount: 20000, customer: { identifier: 'GH0012345678', name: 'Esi' }, ...overrides });

const create = (body: Record<string, unknown>, key = idempotencyKey()): Promise<ApiResponse> =>
  h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body, headers: { 'Idempotency-Key': key } });
const get = (id: string) => h.request('sandbox', 'GET', `/v1/charges/${id}`, { key: merchant.testKey });

async function tokenRow(chargeId: string): Promise<Record<string, unknown>> {
  const rows = await h.orm.em.getConnection().execute<Record<string, unknown>[]>(`select * from checkout_tokens where charge_id = ?`, [chargeId]);
  return rows[0];
}

async function workflowStatus(id: string): Promise<string> {
  return (await h.temporal.client.workflow.getHandle(id).describe()).status.name;
}

beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
  web = await startCheckoutWeb(h);
  merchant = await h.merchant();
  const rows = await h.orm.em.getConnection().execute<Array<{ name: string }>>(`select name from merchants where id = ?`, [merchant.id]);
  merchantName = rows[0].name;
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

test('a card charge answers 3ds_redirect with a single-use url on the web port; the token is stored only as its sha256, and shown nowhere else', async () => {
  const key = idempotencyKey();
  const created = await create(card(), key);
  expect(created.status).toBe(200);
  expect(created.json).toMatchObject({ status: 'awaiting_action', channel: 'card', action: { type: '3ds_redirect' } });
  const url: string = created.json.action.url;
  expect(url).toMatch(new RegExp(`^${web.url}/checkout/[A-Za-z0-9_-]{43}$`));
  const token = tokenOf(url);
  const row = await tokenRow(created.json.id);
  expect(row).toMatchObject({ token_hash: createHash('sha256').update(token).digest('hex'), used_at: null, decision: null });
  expect(new Date(row.expires_at as string).toISOString()).toBe(created.json.expires_at);
  // The idempotent replay is the same answer, byte for byte; the charge itself and its event have no url.
  const replay = await create(card(), key);
  expect(replay.text).toBe(created.text);
  expect((await get(created.json.id)).json.action).toEqual({ type: '3ds_redirect' });
  const events = await h.request('sandbox', 'GET', '/v1/events', { key: merchant.testKey });
  expect(events.text).not.toContain(token);
  await h.temporal.client.workflow.getHandle(created.json.id).terminate('test finished');
});

test('card: the page shows amount and merchant; approve leads to the challenge; the right code succeeds the charge (ledger, event); the link is then used up', async () => {
  const created = await create(card({ amount: 10000 }));
  const url: string = created.json.action.url;
  const page = await fetch(url);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
  const html = await page.text();
  expect(html).toContain('<html lang="en">');
  expect(html).toContain(merchantName);
  expect(html).toContain('USD 100.00');
  expect(html).not.toMatch(/<script/i);

  const challenge = await postForm(url, { decision: 'approve' });
  expect(challenge.status).toBe(200);
  const challengeHtml = await challenge.text();
  expect(challengeHtml).toContain('<label for="code">');
  expect(challengeHtml).toContain('123456');
  // The challenge page changed nothing.
  expect((await tokenRow(created.json.id)).used_at).toBeNull();

  const done = await postForm(`${url}/challenge`, { code: '123456' });
  expect(done.status).toBe(200);
  expect(await done.text()).toContain('Payment approved');
  const final = await h.settled(created.json.id);
  expect(final).toMatchObject({ status: 'succeeded', failureClass: null });
  expect(await tokenRow(created.json.id)).toMatchObject({ decision: 'approved' });
  const balance = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  expect(balance.json.available).toEqual(expect.arrayContaining([{ currency: 'USD', amount: created.json.merchant_amount }]));
  const events = await h.request('sandbox', 'GET', '/v1/events', { key: merchant.testKey });
  const types = (events.json.data as Array<{ type: string; data: { id: string } }>).filter((e) => e.data.id === created.json.id).map((e) => e.type);
  expect(types).toEqual(expect.arrayContaining(['transaction.created', 'transaction.succeeded']));

  // Replayed: a clear page, and nothing changes.
  const before = await get(created.json.id);
  for (const replayed of [await fetch(url), await postForm(url, { decision: 'decline' }), await postForm(`${url}/challenge`, { code: '123456' })]) {
    expect(replayed.status).toBe(410);
    expect(await replayed.text()).toContain('already been used');
  }
  expect((await get(created.json.id)).text).toBe(before.text);
  expect(await tokenRow(created.json.id)).toMatchObject({ decision: 'approved' });
});

test('card: a wrong challenge code declines the charge (failed, declined)', async () => {
  const created = await create(card());
  const url: string = created.json.action.url;
  const done = await postForm(`${url}/challenge`, { code: '000000' });
  expect(done.status).toBe(200);
  expect(await done.text()).toContain('Payment declined');
  expect(await h.settled(created.json.id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
});

test('bank: hosted_checkout; approve succeeds at once (no challenge)', async () => {
  const created = await create(bank());
  expect(created.json).toMatchObject({ status: 'awaiting_action', action: { type: 'hosted_checkout' } });
  const url: string = created.json.action.url;
  const html = await (await fetch(url)).text();
  expect(html).toContain('GHS 200.00');
  expect(html).toContain(merchantName);
  const done = await postForm(url, { decision: 'approve' });
  expect(done.status).toBe(200);
  expect(await done.text()).toContain('Payment approved');
  expect((await h.settled(created.json.id)).status).toBe('succeeded');
  expect((await get(created.json.id)).json).toMatchObject({ status: 'succeeded', action: { type: 'hosted_checkout' } });
});

test('bank: decline fails the charge with declined', async () => {
  const created = await create(bank());
  const done = await postForm(created.json.action.url, { decision: 'decline' });
  expect(done.status).toBe(200);
  expect(await h.settled(created.json.id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
  const fetched = await get(created.json.id);
  expect(fetched.json).toMatchObject({ status: 'failed', failure_class: 'declined' });
});

test('an expired link: 410 with an explanation, and a decision changes nothing', async () => {
  const created = await create(bank());
  const url: string = created.json.action.url;
  await h.orm.em.getConnection().execute(`update checkout_tokens set expires_at = now() - interval '1 second' where charge_id = ?`, [created.json.id]);
  const page = await fetch(url);
  expect(page.status).toBe(410);
  expect(await page.text()).toContain('expired');
  const post = await postForm(url, { decision: 'approve' });
  expect(post.status).toBe(410);
  expect(await tokenRow(created.json.id)).toMatchObject({ used_at: null, decision: null });
  expect((await get(created.json.id)).json.status).toBe('awaiting_action');
  expect(await workflowStatus(created.json.id)).toBe('RUNNING');
  await h.temporal.client.workflow.getHandle(created.json.id).terminate('test finished');
});

test('sandbox advance on a charge waiting for its checkout fires the expiry: the charge expires and the link says so', async () => {
  const created = await create(card());
  const url: string = created.json.action.url;
  // The workflow registers the timer once it has begun; advance answers 409 until then.
  let advanced: ApiResponse | undefined;
  for (let i = 0; i < 50; i++) {
    advanced = await h.request('sandbox', 'POST', `/v1/sandbox/advance/${created.json.id}`, { key: merchant.testKey });
    if (advanced.status === 200) break;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  expect(advanced?.status).toBe(200);
  expect(await h.settled(created.json.id)).toMatchObject({ status: 'expired' });
  const page = await fetch(url);
  expect(page.status).toBe(410);
  expect(await page.text()).toContain('no longer waiting');
  expect((await postForm(`${url}/challenge`, { code: '123456' })).status).toBe(410);
  expect(await tokenRow(created.json.id)).toMatchObject({ used_at: null });
});

test('unknown and malformed tokens: 404, nothing looked up or changed', async () => {
  for (const path of ['/checkout/' + 'A'.repeat(43), '/checkout/short', '/checkout/' + 'A'.repeat(43) + '/challenge']) {
    const res = path.endsWith('challenge') ? await postForm(web.url + path, { code: '123456' }) : await fetch(web.url + path);
    expect({ path, status: res.status }).toEqual({ path, status: 404 });
    expect(await res.text()).toContain('not valid');
  }
});

test('an explicit sandbox_outcome keeps the simulator: pending, no action, no checkout', async () => {
  const created = await create(card({ metadata: { sandbox_outcome: 'succeed' } }));
  expect(created.json).toMatchObject({ status: 'pending', action: null });
  expect(await tokenRow(created.json.id)).toBeUndefined();
  expect((await h.settled(created.json.id)).status).toBe('succeeded');
});

test('a decision that cannot reach the workflow: 503 page, the token is released, nothing changed', async () => {
  const created = await create(bank());
  const url: string = created.json.action.url;
  // The run is gone (terminated by hand): the signal fails.
  await h.temporal.client.workflow.getHandle(created.json.id).terminate('test: no workflow to signal');
  const res = await postForm(url, { decision: 'approve' });
  expect(res.status).toBe(503);
  expect(await res.text()).toContain('Nothing has changed');
  expect(await tokenRow(created.json.id)).toMatchObject({ used_at: null, decision: null });
  expect((await get(created.json.id)).json.status).toBe('awaiting_action');
});
