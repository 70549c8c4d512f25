import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import type { FakeAggregator } from '../../src/rail/aggregator/fake';
import { postForm, startCheckoutWeb, type CheckoutWeb } from '../support/checkout-web';
import { cardEnding, FUTURE_EXPIRY } from '../support/test-cards';
import { capturingLogger, decodedHistoryText, everyRowAsText, standaloneHits } from '../support/secret-search';

/**
 * Issue 45, "live card": a live card charge answers `awaiting_action` with a `3ds_redirect` url; its
 * hosted page is the only thing that takes the card, sends it to the aggregator (the fake one, over
 * real HTTP) and shows the aggregator's challenge; the charge ends only as the aggregator says. Each
 * card behaviour of the fake through the engine. The harness's close runs the ledger check.
 */

let p: PartnerHarness;
let agg: FakeAggregator;
let m: TestMerchant;
let web: CheckoutWeb;
/** Every card number sent through a page here, every charge made, and the API's log lines: searched by the last test. */
const sentCards: string[] = [];
const chargeIds: string[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  p = await startPartnerHarness({ aggregator: { fake: { approveAfterMs: 300, challengeExpiryMs: 4_000 }, routes: 'mobile_money:*=momo,bank:*=aggregator,card:*=aggregator' } });
  agg = p.aggregator!;
  p.h.deps.log = capturingLogger(logLines);
  web = await startCheckoutWeb(p.h);
  m = await p.h.merchant({ verified: true });
  await fundMerchant(p.h, m.id, 500_000, 'GHS', 'live');
});
afterAll(async () => {
  await web?.close();
  await p?.close();
});

async function cardCharge(amount = 12_000, identifier = 'ama@example.com'): Promise<{ id: string; url: string }> {
  const res = await p.h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ channel: 'card', momo_network_id: undefined, amount, customer: { identifier, name: 'Ama Mensah' }, reference: `card-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  chargeIds.push(res.json.id);
  expect(res.json).toMatchObject({ channel: 'card', livemode: true, rail: 'aggregator', status: 'awaiting_action', action: { type: '3ds_redirect' } });
  return { id: res.json.id, url: res.json.action.url };
}

/** The card form's post, as the browser sends it; answers the page it leads to (following the 303). */
async function payWith(url: string, number: string, expiry = FUTURE_EXPIRY, cvc = '731'): Promise<{ status: number; page: string }> {
  sentCards.push(number);
  const posted = await postForm(url, { number, expiry, cvc });
  if (posted.status !== 303) return { status: posted.status, page: await posted.text() };
  expect(new URL(posted.headers.get('location')!, url).pathname).toBe(new URL(url).pathname);
  const page = await fetch(url);
  return { status: page.status, page: await page.text() };
}

const finished = (id: string) => p.h.settled(id);

async function submission(chargeId: string) {
  const rows = await p.h.orm.em.getConnection().execute<Array<Record<string, unknown>>>(`select * from card_submissions where charge_id = ?`, [chargeId]);
  return rows[0];
}

async function referenceOf(chargeId: string): Promise<string | undefined> {
  const rows = await p.h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [chargeId]);
  return rows[0]?.reference_id;
}

describe('a live card charge through the hosted page', () => {
  test('no challenge: the page takes the card, the aggregator approves, the charge succeeds; only brand, last four and the sealed token are kept', async () => {
    const { id, url } = await cardCharge();
    const form = await (await fetch(url)).text();
    expect(form).toContain('autocomplete="cc-number"');
    expect(form).not.toContain('TEST MODE');
    const number = cardEnding('4242');
    const { status } = await payWith(url, number);
    expect(status).toBe(200);
    expect(await finished(id)).toMatchObject({ status: 'succeeded', environment: 'live' });
    const row = await submission(id);
    expect(row).toMatchObject({ state: 'submitted', brand: 'visa', last4: '4242', outcome: 'accepted' });
    expect(JSON.stringify(row)).not.toContain(number);
    const kept = agg.transaction('collection', (await referenceOf(id))!)!;
    expect(kept).toBeDefined();
    expect(JSON.stringify(kept)).not.toContain(number);
    // The charge object and its event say which card paid: brand and last four, nothing more.
    const fetched = await p.h.request('live', 'GET', `/v1/charges/${id}`, { key: m.liveKey });
    expect(fetched.json.card).toEqual({ brand: 'visa', last4: '4242' });
    const events = await p.h.request('live', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.liveKey });
    const succeeded = events.json.data.find((e: { type: string; resource_id: string }) => e.type === 'transaction.succeeded' && e.resource_id === id);
    expect(succeeded.data).toMatchObject({ card: { brand: 'visa', last4: '4242' } });
    // The page now shows the outcome; another card is not taken.
    const after = await (await fetch(url)).text();
    expect(after).toContain('Payment approved');
    expect(after).toContain('4242');
    expect((await postForm(url, { number: cardEnding('1111'), expiry: FUTURE_EXPIRY, cvc: '123' })).status).toBe(303);
    expect((await submission(id)).last4).toBe('4242');
  });

  test('a one-time code challenge (0020): the page shows the code form; the right code approves', async () => {
    const { id, url } = await cardCharge();
    const { page } = await payWith(url, cardEnding('0020'));
    expect(page).toContain('id="otp"');
    const sent = await postForm(`${url}/otp`, { otp: '123456' });
    expect(sent.status).toBe(303);
    expect(await finished(id)).toMatchObject({ status: 'succeeded' });
  });

  test('a wrong one-time code (0020): the aggregator fails the charge, declined', async () => {
    const { id, url } = await cardCharge();
    await payWith(url, cardEnding('0020'));
    expect((await postForm(`${url}/otp`, { otp: '000000' })).status).toBe(303);
    expect(await finished(id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
    // A second code is not sent.
    expect((await postForm(`${url}/otp`, { otp: '123456' })).status).toBe(303);
    expect((await fetch(url).then((r) => r.text()))).toContain('Payment declined');
  });

  test.each([
    ['authenticate', 'succeeded'],
    ['cancel', 'failed'],
  ])('a 3-D Secure redirect (0021): the customer goes to the aggregator\'s page and chooses %s; back on our page, the charge %s', async (action, outcome) => {
    const { id, url } = await cardCharge();
    const { page } = await payWith(url, cardEnding('0021'));
    // The href as the browser reads it (the page escapes every value it writes).
    const link = /id="continue" href="([^"]+)"/.exec(page)?.[1]?.replace(/&#x2F;/g, '/').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');
    expect(link).toBeDefined();
    expect(link!.startsWith(`${agg.url}/`)).toBe(true);
    const challenge = await fetch(link!);
    expect(await challenge.text()).toContain(`id="${action}"`);
    const chosen = await postForm(link!, { action });
    expect(chosen.status).toBe(303);
    const back = chosen.headers.get('location')!;
    expect(back.startsWith(`${url}/return`)).toBe(true);
    const returned = await fetch(back, { redirect: 'manual' });
    expect(returned.status).toBe(303);
    expect(await finished(id)).toMatchObject({ status: outcome });
  });

  test.each([
    ['0023', 'an expired card', 'EXPIRED_CARD'],
    ['0002', 'a card the aggregator refuses at once', 'INVALID_CARD'],
  ])('%s, %s: refused at once; the charge fails declined with the aggregator\'s reason, nothing kept by the aggregator', async (ending, _name, reason) => {
    const { id, url } = await cardCharge();
    const { page } = await payWith(url, cardEnding(ending));
    expect(page).toContain('Payment declined');
    expect(await finished(id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
    expect(await submission(id)).toMatchObject({ outcome: 'refused', reason });
  });

  test('an issuer decline after acceptance (0022): failed declined on the aggregator\'s word', async () => {
    const { id, url } = await cardCharge();
    await payWith(url, cardEnding('0022'));
    expect(await finished(id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
  });

  test('a challenge never completed (0020, no code): the aggregator times it out; the charge fails on its word', async () => {
    const { id, url } = await cardCharge();
    await payWith(url, cardEnding('0020'));
    expect(await finished(id)).toMatchObject({ status: 'failed', failureClass: 'timeout' });
  });

  test('a card that is not a card number (Luhn) or has expired is refused by the page: nothing claimed, nothing sent, the form again without the number', async () => {
    const { id, url } = await cardCharge();
    const bad = '4000000000000001';
    const res = await postForm(url, { number: bad, expiry: FUTURE_EXPIRY, cvc: '731' });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('id="problem"');
    expect(page).not.toContain(bad);
    expect((await postForm(url, { number: cardEnding('4242'), expiry: '01/20', cvc: '731' })).status).toBe(400);
    expect(await submission(id)).toBeUndefined();
    expect(await referenceOf(id)).toBeUndefined();
  });

  test('a live card charge whose customer identifier is a card number is refused before anything is written', async () => {
    const res = await p.h.request('live', 'POST', '/v1/charges', {
      key: m.liveKey,
      body: chargeBody({ channel: 'card', momo_network_id: undefined, amount: 5_000, customer: { identifier: cardEnding('4242') } }),
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_request', param: 'customer.identifier' });
  });

  test('a partial then a full refund of a live card charge go back through the aggregator', async () => {
    const { id, url } = await cardCharge(20_000);
    await payWith(url, cardEnding('4242'));
    expect(await finished(id)).toMatchObject({ status: 'succeeded' });
    const refund = async (amount?: number) => {
      const res = await p.h.request('live', 'POST', '/v1/refunds', { key: m.liveKey, body: { charge: id, ...(amount ? { amount } : {}) }, headers: { 'Idempotency-Key': idempotencyKey() } });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ rail: 'aggregator' });
      return res.json.id as string;
    };
    const refunded = (refundId: string) => p.h.temporal.client.workflow.getHandle(refundId).result() as Promise<{ status: string }>;
    const partial = await refund(5_000);
    expect(await refunded(partial)).toMatchObject({ status: 'succeeded' });
    const rest = await refund();
    expect(await refunded(rest)).toMatchObject({ status: 'succeeded' });
    const charge = await p.h.request('live', 'GET', `/v1/charges/${id}`, { key: m.liveKey });
    expect(charge.json).toMatchObject({ amount_refunded: 20_000 });
  });

  test('no card number or security code in any table, any decoded workflow history, any event or the API logs (the page is the only thing that sees them)', async () => {
    // A 4-digit security code (an American Express card), so the code is a distinctive number to search for.
    const { id, url } = await cardCharge();
    await payWith(url, cardEnding('4242', '3700', 15), FUTURE_EXPIRY, '7319');
    expect(await finished(id)).toMatchObject({ status: 'succeeded' });
    const rows = await everyRowAsText(p.h);
    const histories = await Promise.all(chargeIds.map((chargeId) => decodedHistoryText(p.h, chargeId)));
    const events = JSON.stringify((await p.h.request('live', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.liveKey })).json);
    // The search sees what is there: the tables hold the submissions (brand, last four), the decoded
    // histories the charges' states, the logs the page's lines, the events the charges.
    expect(rows.filter((r) => r.startsWith('card_submissions:')).length).toBeGreaterThan(5);
    expect(rows.join('\n')).toContain('amex');
    expect(histories.every((text) => text.includes('"environment":"live"'))).toBe(true);
    expect(logLines.join('')).toContain('live card: sent to the aggregator');
    expect(events).toContain(id);
    const corpora: Record<string, string[]> = { tables: rows, histories, events: [events], logs: logLines };
    for (const [where, texts] of Object.entries(corpora)) {
      for (const number of sentCards) {
        const spaced = number.replace(/(.{4})/g, '$1 ').trim();
        expect([where, texts.filter((t) => t.includes(number) || t.includes(spaced)).map((t) => t.slice(0, 200))]).toEqual([where, []]);
      }
      expect([where, standaloneHits(texts, '7319')]).toEqual([where, []]);
    }
  });
});
