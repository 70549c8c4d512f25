import { randomBytes } from 'node:crypto';
import type { Environment } from '../../src/domain/environment';
import { v1Routers } from '../../src/http/app';
import { startFakePartner, type FakePartner } from '../../src/rail/fake-partner';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import type { PartnerRail } from '../../src/rail/partner-rail';
import { runSettlements } from '../../src/services/settlement-run';
import type { Resolver } from '../../src/webhooks/url-policy';
import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { giveSettlementAccount } from '../support/settlement-runs';

/**
 * Issue 20, "Isolation, walked": after activity in both environments (charges, a refund and a
 * dispute, payouts, settlements, webhook endpoints and their deliveries, events, balance
 * transactions), every list and figure endpoint is walked with each environment's key, and no id of
 * the other environment appears in any answer; every detail route asked for the other environment's
 * ids answers 404. The walk takes its routes from the routers each listener mounts, so a route added
 * later is walked too. Reference data (`/v1/reference/*`, `/v1/event-types`) belongs to no merchant.
 */

const SECRET = randomBytes(32).toString('base64url');
const resolve: Resolver = async (host) => {
  if (host === 'hooks.example.com') return ['93.184.216.34'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

let fake: FakePartner;
let adapter: MomoPartnerRail;
let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  fake = await startFakePartner({ approveAfterMs: 200 });
  const rail: PartnerRail = { submit: (p, r) => adapter.submit(p, r), status: (p, ref) => adapter.status(p, ref) };
  h = await startHarness({ rail, partnerCallbacks: { callbackSecret: SECRET }, resolve });
  adapter = new MomoPartnerRail(fake.partnerConfig({ callbackBaseUrl: h.urls.live, callbackSecret: SECRET }));
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await h?.close();
  await adapter?.close();
  await fake?.close();
});

const keyOf = (env: Environment) => (env === 'sandbox' ? m.testKey : m.liveKey);
const post = (env: Environment, path: string, body: unknown) => h.request(env, 'POST', path, { key: keyOf(env), body, headers: { 'Idempotency-Key': idempotencyKey() } });

/** Activity of every kind in one environment; the ids of the objects it made. */
async function activity(env: Environment): Promise<void> {
  const endpoint = await post(env, '/v1/webhook-endpoints', { url: env === 'sandbox' ? 'http://127.0.0.1:9/hook' : 'https://hooks.example.com/hook' });
  expect(endpoint.status).toBe(201);
  const charge = await post(env, '/v1/charges', chargeBody({ reference: `walk-${env}` }));
  expect(charge.status).toBe(200);
  expect(await h.settled(charge.json.id)).toMatchObject({ status: 'succeeded', environment: env });
  await fundMerchant(h, m.id, 200_000, 'GHS', env);
  const payout = await post(env, '/v1/payouts', { amount: 10_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233240004567', name: 'K' }, reference: `walk-po-${env}` });
  expect(payout.status).toBe(200);
  await h.temporal.client.workflow.getHandle(payout.json.id).result();
  if (env === 'sandbox') {
    // Refunds and disputes exist in the sandbox only (live refunds are not on the partner rail yet).
    const refund = await post(env, '/v1/refunds', { charge: charge.json.id, amount: 1_000 });
    expect(refund.status).toBe(200);
    await h.temporal.client.workflow.getHandle(refund.json.id).result();
    expect((await post(env, `/v1/sandbox/charges/${charge.json.id}/disputes`, { amount: 500 })).status).toBe(200);
  }
  await giveSettlementAccount(h, m.id);
  const run = await runSettlements({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue }, { merchantId: m.id, environment: env });
  for (const b of run.batches) await h.temporal.client.workflow.getHandle(b.id).result();
}

/** The GET routes of a listener: those without a parameter (lists and figures) and those with `:id`. */
function getRoutes(env: Environment): { lists: string[]; details: string[] } {
  const lists: string[] = [];
  const details: string[] = [];
  for (const router of v1Routers(h.deps, { environment: env, bodyLimitBytes: 64 * 1024 })) {
    for (const layer of router.stack) {
      const path = String(layer.path);
      if (!layer.methods.includes('GET') || path.startsWith('/v1/reference') || path === '/v1/event-types') continue;
      (path.includes(':') ? details : lists).push(path);
    }
  }
  return { lists, details };
}

/** Every answer of the environment's list and figure routes (first pages of 100; events from sequence 0). */
async function walk(env: Environment): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of getRoutes(env).lists) {
    const query = path === '/v1/events' ? '?after_sequence=0&limit=100' : path === '/v1/balances' ? '' : '?limit=100';
    const res = await h.request(env, 'GET', path + query, { key: keyOf(env) });
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    out[path] = res.text;
  }
  // Deliveries are listed per endpoint.
  for (const endpoint of idsIn(out)) {
    if (!endpoint.startsWith('we_')) continue;
    const res = await h.request(env, 'GET', `/v1/webhook-endpoints/${endpoint}/deliveries?limit=100`, { key: keyOf(env) });
    expect(res.status).toBe(200);
    out[`/v1/webhook-endpoints/${endpoint}/deliveries`] = res.text;
  }
  return out;
}

const idsIn = (texts: Record<string, string>): Set<string> => new Set(Object.values(texts).flatMap((t) => [...t.matchAll(/"id":"([a-z]+_[A-Za-z0-9]+)"/g)].map((x) => x[1])));

test('no object of one environment is listed, counted or found in the other, both ways', async () => {
  await activity('sandbox');
  await activity('live');
  const seen = { sandbox: await walk('sandbox'), live: await walk('live') };
  const ids = { sandbox: idsIn(seen.sandbox), live: idsIn(seen.live) };
  // Each side saw its own objects of every kind.
  for (const env of ['sandbox', 'live'] as const) {
    for (const prefix of ['txn_', 'po_', 'stl_', 'we_', 'evt_', 'dlv_']) {
      expect({ env, prefix, found: [...ids[env]].some((id) => id.startsWith(prefix)) }).toEqual({ env, prefix, found: true });
    }
  }
  expect([...ids.sandbox].some((id) => id.startsWith('re_') || id.startsWith('dp_'))).toBe(true);
  for (const [env, other] of [
    ['sandbox', 'live'],
    ['live', 'sandbox'],
  ] as const) {
    const mine = ids[env];
    for (const [path, text] of Object.entries(seen[other])) {
      const leaked = [...mine].filter((id) => text.includes(id));
      expect({ env, shownIn: `${other} ${path}`, leaked }).toEqual({ env, shownIn: `${other} ${path}`, leaked: [] });
    }
    // Asked by id on the other listener: 404, as for an id that does not exist.
    for (const route of getRoutes(other).details) {
      for (const id of mine) {
        const res = await h.request(other, 'GET', route.replace(/:[A-Za-z_]+/, id), { key: keyOf(other) });
        expect({ route, id, status: res.status }).toEqual({ route, id, status: res.status === 200 ? 404 : res.status });
        expect(res.status).not.toBe(200);
      }
    }
  }
  // Figures: the live balance holds the live activity alone (200 000 funded, 15 000 collected less fees, one payout, one settlement).
  const live = JSON.parse(seen.live['/v1/balances']);
  const sandbox = JSON.parse(seen.sandbox['/v1/balances']);
  expect(live).not.toEqual(sandbox);
});
