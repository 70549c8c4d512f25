import { chargeBody, idempotencyKey, MTN_GH } from '../support/harness';
import { cleanUp, ready, startMain, type StartedMain } from '../support/npm-start';
import { npmStartApi } from '../support/npm-start-api';
import { postForm } from '../support/checkout-web';
import { cardEnding, FUTURE_EXPIRY } from '../support/test-cards';
import { standaloneHits } from '../support/secret-search';

/**
 * Issue 45's walk on `npm start`'s own servers and wiring (src/main.ts starts the fake partner and
 * the fake aggregator, RAIL_ROUTES defaults to mobile money at the MoMo partner and bank at the
 * aggregator, the worker process gets both partners' settings): as a merchant, a live mobile-money
 * charge and a live bank-transfer charge (its hosted page shows the account the aggregator gives),
 * a partial and a full live refund of each through the partner that took it, and a live payout to a
 * bank account; each ends as its partner says, shows its `rail`, has its events, and `ledger check`
 * balances at the end; a live card charge through its hosted page (the aggregator's one-time code
 * passed), refunded in two parts; nothing npm start printed holds the card number or its code.
 */

let s: StartedMain;
let liveUrl: string;
let webUrl: string;
let key: string;

const { cli, api, settled } = npmStartApi(() => ({ s, url: liveUrl, key }));


async function eventTypes(resourceId: string): Promise<string[]> {
  const res = await api('GET', '/v1/events?after_sequence=0&limit=100');
  return (res.json.data as Array<{ resource_id: string; type: string }>).filter((e) => e.resource_id === resourceId).map((e) => e.type);
}

/** A partial refund, then the rest: both through the charge's partner, both succeeded. */
async function refundTwice(chargeId: string, amount: number, rail: string): Promise<void> {
  const partial = await api('POST', '/v1/refunds', { charge: chargeId, amount: Math.floor(amount / 3) });
  expect(partial.status).toBe(200);
  expect(partial.json).toMatchObject({ status: 'pending', rail, livemode: true });
  await settled('refunds', partial.json.id, 'succeeded');
  const rest = await api('POST', '/v1/refunds', { charge: chargeId });
  expect(rest.json).toMatchObject({ amount: amount - Math.floor(amount / 3), rail });
  await settled('refunds', rest.json.id, 'succeeded');
  expect((await api('GET', `/v1/charges/${chargeId}`)).json).toMatchObject({ status: 'succeeded', amount_refunded: amount });
  expect(await eventTypes(rest.json.id)).toEqual(['refund.created', 'refund.succeeded']);
}

beforeAll(async () => {
  s = await startMain({ env: { FAKE_PARTNER_APPROVE_AFTER_MS: '300' } });
  await ready(s);
  liveUrl = `http://127.0.0.1:${s.env.LIVE_PORT}`;
  webUrl = `http://127.0.0.1:${s.env.WEB_PORT}`;
  const merchant = await cli('merchants', 'create', '--name', 'Every Channel Shop');
  key = merchant.live_key as string;
  await cli('merchants', 'verify', merchant.id as string, '--reason', 'KYC checked', '--operator', 'ama@ops');
}, 180_000);

afterAll(async () => {
  if (s) await cleanUp(s);
});

test('npm start: live mobile money (MoMo), bank and card (aggregator) charges, their refunds through the partner that took them, a bank payout; the ledger balanced', async () => {
  expect(s.output().stdout).toContain('Rail routes   mobile_money:*=momo|aggregator,bank:*=aggregator,card:*=aggregator');

  // Mobile money at the MoMo partner: enough to fund the refunds and the payout below.
  const momo = await Promise.all(
    [0, 1].map(() => api('POST', '/v1/charges', chargeBody({ amount: 60_000, customer: { identifier: '233244564567', name: 'Ama Mensah' }, reference: `every-mm-${idempotencyKey()}` }))),
  );
  for (const c of momo) expect(c.json).toMatchObject({ rail: 'momo', status: 'awaiting_action' });
  for (const c of momo) await settled('charges', c.json.id, 'succeeded');

  // A bank transfer at the aggregator: the hosted page shows where to pay; the fake customer pays.
  const bank = await api('POST', '/v1/charges', chargeBody({ channel: 'bank', momo_network_id: undefined, amount: 30_000, customer: { identifier: 'GH0012345678', name: 'Esi Owusu' }, reference: `every-bank-${idempotencyKey()}` }));
  expect(bank.status).toBe(200);
  expect(bank.json).toMatchObject({ rail: 'aggregator', status: 'awaiting_action', action: { type: 'hosted_checkout' } });
  expect(String(bank.json.action.url).startsWith(`${webUrl}/checkout/`)).toBe(true);
  await settled('charges', bank.json.id, 'succeeded');
  expect(await eventTypes(bank.json.id)).toEqual(['transaction.created', 'transaction.succeeded']);

  await refundTwice(momo[0].json.id, 60_000, 'momo');
  await refundTwice(bank.json.id, 30_000, 'aggregator');

  // A payout to a bank account: the aggregator's transfer.
  const payout = await api('POST', '/v1/payouts', { amount: 20_000, currency: 'GHS', channel: 'bank', bank_code: 'GCB', recipient: { identifier: '1234567890', name: 'Kofi Boateng' }, reference: `every-po-${idempotencyKey()}` });
  expect(payout.status).toBe(200);
  expect(payout.json).toMatchObject({ rail: 'aggregator' });
  await settled('payouts', payout.json.id, 'succeeded');
  // And a mobile-money payout at the MoMo partner.
  const wallet = await api('POST', '/v1/payouts', { amount: 5_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233244564567', name: 'Kofi' }, reference: `every-mm-po-${idempotencyKey()}` });
  expect(wallet.json).toMatchObject({ rail: 'momo' });
  await settled('payouts', wallet.json.id, 'succeeded');

  // A live card at the aggregator: the hosted page takes the card (an American Express ending 0020:
  // the aggregator asks for a one-time code), the customer passes the challenge, the charge succeeds.
  const card = await api('POST', '/v1/charges', chargeBody({ channel: 'card', momo_network_id: undefined, amount: 24_000, customer: { identifier: 'esi@example.com', name: 'Esi' }, reference: `every-card-${idempotencyKey()}` }));
  expect(card.status).toBe(200);
  expect(card.json).toMatchObject({ rail: 'aggregator', status: 'awaiting_action', action: { type: '3ds_redirect' } });
  const pageUrl = String(card.json.action.url);
  expect(pageUrl.startsWith(`${webUrl}/checkout/`)).toBe(true);
  const number = cardEnding('0020', '3700', 15);
  expect((await postForm(pageUrl, { number, expiry: FUTURE_EXPIRY, cvc: '7319' })).status).toBe(303);
  expect(await (await fetch(pageUrl)).text()).toContain('id="otp"');
  expect((await postForm(`${pageUrl}/otp`, { otp: '123456' })).status).toBe(303);
  await settled('charges', card.json.id, 'succeeded');
  expect(await (await fetch(pageUrl)).text()).toContain('Payment approved');
  await refundTwice(card.json.id, 24_000, 'aggregator');
  // A card number as a live card charge's customer is refused; nothing is written.
  const pan = await api('POST', '/v1/charges', chargeBody({ channel: 'card', momo_network_id: undefined, customer: { identifier: '4242424242424242', name: 'Esi' } }));
  expect(pan.status).toBe(400);
  expect(pan.json.error).toMatchObject({ code: 'invalid_request', param: 'customer.identifier' });
  // Nothing npm start printed (API, worker, fake partners) holds the card number or its security code.
  const printed = [s.output().stdout, s.output().stderr];
  expect(printed.join('')).toContain('live card: sent to the aggregator');
  expect(printed.filter((text) => text.includes(number))).toEqual([]);
  expect(standaloneHits(printed.join('').split('\n'), '7319')).toEqual([]);

  // Issue 46: every call to both partners was measured by the worker (MeasuredRail in liveRailsOf), and their breakers stayed closed.
  const routing = await cli('routing', 'status', '--json');
  for (const partner of ['momo', 'aggregator']) {
    expect((routing.data as Array<Record<string, unknown>>).find((row) => row.partner === partner)).toMatchObject({ state: 'closed', calls: expect.any(Number), success_rate: expect.any(Number) });
  }
  expect((routing.data as Array<{ calls: number }>).every((row) => row.calls > 0)).toBe(true);

  expect(await cli('ledger', 'check')).toMatchObject({ ok: true });
}, 240_000);
