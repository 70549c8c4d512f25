import { randomUUID } from 'node:crypto';
import { AggregatorCards } from '../../src/rail/aggregator/card';
import { encryptCardPayload } from '../../src/rail/aggregator/card-crypto';
import { RailUnavailable } from '../../src/rail/partner-rail';
import { RailMisconfigured, RailRequestInvalid } from '../../src/rail/rail-errors';
import { finalStatus, rawCall, waitFor, webhooksOf } from './aggregator-support';
import { card, cardNumber, cardRequest, startCardWorld, type CardWorld } from './aggregator-card-support';

/** The card client against the fake aggregator over real HTTP: the protocol, what is kept, the answers it reads as what. */
describe('AggregatorCards against the fake aggregator', () => {
  let world: CardWorld;
  beforeAll(async () => {
    world = await startCardWorld({ approveAfterMs: 250 });
  });
  afterAll(() => world?.close());

  test('no challenge (…4242): accepted with the card as kept, pending, then succeeded; one CARD_TRANSACTION webhook', async () => {
    const request = cardRequest();
    const answer = await world.cards.chargeCard(request, card('4242'));
    const kept = world.fake.transaction('collection', request.referenceId)!;
    expect(answer).toEqual({ kind: 'accepted', card: { brand: 'visa', last4: '4242', token: kept.card!.token }, flwRef: kept.flwRef });
    expect(await world.rail.status('collection', request.referenceId)).toEqual({ status: 'pending' });
    expect(await finalStatus(world.rail, 'collection', request.referenceId)).toEqual({ status: 'succeeded', financialTransactionId: String(kept.id), amount: 4_200, currency: 'USD' });
    const hooks = await waitFor('the webhook', () => webhooksOf(world, request.referenceId).length === 1 && webhooksOf(world, request.referenceId));
    expect(JSON.parse(hooks[0].body)).toMatchObject({ event: 'charge.completed', 'event.type': 'CARD_TRANSACTION', data: { payment_type: 'card', card: { last_4digits: '4242', type: 'VISA' } } });
    expect(hooks[0].verified).toMatchObject({ product: 'collection', claimed: { status: 'succeeded' } });
  });

  test('what the fake records of a card charge: the encrypted card masked, never the number', async () => {
    const request = cardRequest();
    const sentCard = card('4242');
    await world.cards.chargeCard(request, sentCard);
    const recorded = world.fake.requests.filter((r) => r.path === '/v3/charges?type=card').at(-1)!;
    expect(recorded.body).toEqual({ client: '[redacted]' });
    expect(JSON.stringify(world.fake.requests)).not.toContain(sentCard.number);
  });

  test('the fake keeps the brand, first six, last four, expiry and its token only; the statement shows the card as its last four', async () => {
    const request = cardRequest();
    const mastercard = { ...card(), number: cardNumber('5555', '5399', 16) };
    const answer = await world.cards.chargeCard(request, mastercard);
    expect(answer).toMatchObject({ kind: 'accepted', card: { brand: 'mastercard', last4: '5555' } });
    const kept = world.fake.transaction('collection', request.referenceId)!;
    expect(kept).toMatchObject({ paymentType: 'card', partyKind: 'CARD', partyId: `${mastercard.number.slice(0, 6)}******5555`, card: { brand: 'mastercard', first6: mastercard.number.slice(0, 6), last4: '5555', expiry: `09/${String(mastercard.expiryYear % 100)}` } });
    const everything = JSON.stringify(world.fake.transactions());
    expect(everything).not.toContain(mastercard.number);
    expect(everything).not.toContain('"987"');
    const line = world.fake.statement('collection', new Date().toISOString().slice(0, 10)).lines.find((l) => l.referenceId === request.referenceId)!;
    expect(line.party).toBe('****5555');
  });

  test('the same tx_ref again is a duplicate with the kept card, and changes nothing', async () => {
    const request = cardRequest();
    const first = await world.cards.chargeCard(request, card('4242'));
    const before = world.fake.transaction('collection', request.referenceId);
    const again = await world.cards.chargeCard({ ...request, amount: 1 }, card('1881'));
    expect(again).toEqual({ ...first, kind: 'duplicate' });
    expect(world.fake.transaction('collection', request.referenceId)).toEqual(before);
  });

  test('0002: refused at once, INVALID_CARD (declined); nothing kept', async () => {
    const request = cardRequest();
    expect(await world.cards.chargeCard(request, card('0002'))).toEqual({ kind: 'refused', reason: 'INVALID_CARD', failureClass: 'declined' });
    expect(world.fake.transaction('collection', request.referenceId)).toBeUndefined();
  });

  test('0023: refused at once, EXPIRED_CARD, whatever the expiry says', async () => {
    expect(await world.cards.chargeCard(cardRequest(), card('0023'))).toEqual({ kind: 'refused', reason: 'EXPIRED_CARD', failureClass: 'declined' });
  });

  test('0022: accepted, then failed ISSUER_DECLINED ("Do Not Honour"), one webhook', async () => {
    const request = cardRequest();
    expect(await world.cards.chargeCard(request, card('0022'))).toMatchObject({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'collection', request.referenceId)).toEqual({ status: 'failed', reason: 'ISSUER_DECLINED', failureClass: 'declined', amount: 4_200, currency: 'USD' });
    const verify = await rawCall(world, 'GET', `/v3/transactions/verify_by_reference?tx_ref=${request.referenceId}`);
    expect(verify.json.data).toMatchObject({ status: 'failed', failure_code: 'ISSUER_DECLINED', processor_response: 'Do Not Honour' });
    await waitFor('the webhook', () => webhooksOf(world, request.referenceId).length === 1);
  });

  test('0006: a 500 once (RailUnavailable, nothing kept), the retry is accepted', async () => {
    const request = cardRequest();
    await expect(world.cards.chargeCard(request, card('0006'))).rejects.toThrow(/HTTP 500 PROCESSOR_ERROR/);
    expect(world.fake.transaction('collection', request.referenceId)).toBeUndefined();
    expect(await world.cards.chargeCard(request, card('0006'))).toMatchObject({ kind: 'accepted' });
  });

  test('0013: a copy refused TRANSACTION_IN_PROGRESS is asked about: the aggregator keeps it, a duplicate', async () => {
    const request = cardRequest();
    await world.cards.chargeCard(request, card('0013'));
    expect(await world.cards.chargeCard(request, card('0013'))).toMatchObject({ kind: 'duplicate', card: { last4: '0013' } });
  });

  test('a card that cannot be sent, a bad reference or redirect URL: RailRequestInvalid before any call, its message the customer\'s words', async () => {
    const sent = world.fake.requests.length;
    const past = new Date().getUTCFullYear() - 1;
    await expect(world.cards.chargeCard(cardRequest(), card('4242', { number: '4000000000004241' }))).rejects.toThrow('The card number is not valid');
    await expect(world.cards.chargeCard(cardRequest(), card('4242', { expiryYear: past }))).rejects.toThrow('This card has expired');
    await expect(world.cards.chargeCard(cardRequest(), card('4242', { cvv: '12' }))).rejects.toThrow('security code');
    await expect(world.cards.chargeCard(cardRequest({ referenceId: 'nope' }), card())).rejects.toBeInstanceOf(RailRequestInvalid);
    await expect(world.cards.chargeCard(cardRequest({ redirectUrl: 'javascript:alert(1)' }), card())).rejects.toBeInstanceOf(RailRequestInvalid);
    await expect(world.cards.chargeCard(cardRequest({ currency: 'XAF' }), card())).rejects.toBeInstanceOf(RailRequestInvalid);
    await expect(world.cards.validateOtp(randomUUID(), 'FAKE-CH-1', '12a456')).rejects.toBeInstanceOf(RailRequestInvalid);
    expect(world.fake.requests.length).toBe(sent);
  });

  test('the fake checks the card as the aggregator would: Luhn, CVV, expiry; a payload it cannot decrypt is ENCRYPTION_FAILED', async () => {
    const payload = (overrides: Record<string, unknown>) => ({ card_number: cardNumber('4242'), cvv: '123', expiry_month: '09', expiry_year: '99', currency: 'USD', amount: 10, tx_ref: randomUUID(), redirect_url: 'https://m.example/r', narration: 'x', meta: { external_id: 'txn_1' }, ...overrides });
    const post = (client: string) => rawCall(world, 'POST', '/v3/charges?type=card', { client });
    expect((await post(encryptCardPayload(world.fake.encryptionKey, payload({ card_number: '4000000000004241' })))).json).toMatchObject({ code: 'INVALID_CARD' });
    expect((await post(encryptCardPayload(world.fake.encryptionKey, payload({ cvv: '12345' })))).json).toMatchObject({ code: 'INVALID_CARD' });
    expect((await post(encryptCardPayload(world.fake.encryptionKey, payload({ expiry_year: '01' })))).json).toMatchObject({ code: 'EXPIRED_CARD' });
    expect(await post(encryptCardPayload('x'.repeat(24), payload({})))).toMatchObject({ status: 400, json: { code: 'ENCRYPTION_FAILED' } });
    expect((await post('not base64 at all')).json).toMatchObject({ code: 'ENCRYPTION_FAILED' });
  });

  test('a wrong encryption key: ENCRYPTION_FAILED is our configuration, RailMisconfigured naming AGGREGATOR_ENCRYPTION_KEY; none configured: RailMisconfigured before any call', async () => {
    const wrong = new AggregatorCards({ ...world.config, encryptionKey: 'y'.repeat(24) });
    const none = new AggregatorCards({ ...world.config, encryptionKey: undefined });
    try {
      const error = await wrong.chargeCard(cardRequest(), card()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RailMisconfigured);
      expect((error as Error).message).toMatch(/HTTP 400 ENCRYPTION_FAILED.*AGGREGATOR_ENCRYPTION_KEY/);
      const sent = world.fake.requests.length;
      await expect(none.chargeCard(cardRequest(), card())).rejects.toThrow(/AGGREGATOR_ENCRYPTION_KEY/);
      await expect(none.chargeCard(cardRequest(), card())).rejects.toBeInstanceOf(RailMisconfigured);
      expect(world.fake.requests.length).toBe(sent);
    } finally {
      await wrong.close();
      await none.close();
    }
  });

  test('a wrong secret key is RailMisconfigured; nobody listening is RailUnavailable', async () => {
    const badKey = new AggregatorCards({ ...world.config, secretKey: 'FLWSECK_TEST-wrong-key-0000' });
    const nobody = new AggregatorCards({ ...world.config, baseUrl: 'http://127.0.0.1:1', timeoutMs: 500 });
    try {
      await expect(badKey.chargeCard(cardRequest(), card())).rejects.toBeInstanceOf(RailMisconfigured);
      await expect(badKey.validateOtp(randomUUID(), 'FAKE-CH-1', '123456')).rejects.toBeInstanceOf(RailMisconfigured);
      await expect(nobody.chargeCard(cardRequest(), card())).rejects.toBeInstanceOf(RailUnavailable);
    } finally {
      await badKey.close();
      await nobody.close();
    }
  });
});

test('an account without cards: CARD_NOT_AVAILABLE, refused (declined)', async () => {
  const world = await startCardWorld({ cards: false });
  try {
    expect(await world.cards.chargeCard(cardRequest(), card())).toEqual({ kind: 'refused', reason: 'CARD_NOT_AVAILABLE', failureClass: 'declined' });
  } finally {
    await world.close();
  }
});
