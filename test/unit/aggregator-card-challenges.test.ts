import { FAKE_CARD_OTP } from '../../src/rail/aggregator/fake';
import { RailUnavailable } from '../../src/rail/partner-rail';
import { finalStatus, rawCall, sleep, waitFor, webhooksOf } from './aggregator-support';
import { card, cardRequest, RETURN_URL, startCardWorld, threeDs, type CardWorld } from './aggregator-card-support';

/** A card's challenges against the fake over real HTTP: the OTP (0020), the 3-D Secure page (0021), one never completed. */
describe('card challenges', () => {
  let world: CardWorld;
  beforeAll(async () => {
    world = await startCardWorld({ approveAfterMs: 250 });
  });
  afterAll(() => world?.close());

  test('0020 with the right OTP: an otp challenge with the aggregator\'s prompt and flw_ref; validated, pending, then succeeded; one webhook', async () => {
    const request = cardRequest();
    const answer = await world.cards.chargeCard(request, card('0020'));
    const kept = world.fake.transaction('collection', request.referenceId)!;
    expect(answer).toEqual({ kind: 'accepted', card: { brand: 'visa', last4: '0020', token: kept.card!.token }, flwRef: kept.flwRef, challenge: { mode: 'otp', prompt: expect.stringContaining('Enter the OTP') } });
    // Nothing happens until the customer answers: the status stays pending, and says so again on a retry.
    await sleep(400);
    expect(await world.rail.status('collection', request.referenceId)).toEqual({ status: 'pending' });
    expect(await world.cards.chargeCard(request, card('0020'))).toEqual({ ...answer, kind: 'duplicate' });
    expect(await world.cards.validateOtp(request.referenceId, kept.flwRef, FAKE_CARD_OTP)).toEqual({ kind: 'accepted' });
    expect(world.fake.requests.at(-1)).toMatchObject({ path: '/v3/validate-charge', body: { otp: '[redacted]', flw_ref: kept.flwRef, type: 'card' } });
    expect(await world.rail.status('collection', request.referenceId)).toEqual({ status: 'pending' });
    expect(await finalStatus(world.rail, 'collection', request.referenceId)).toMatchObject({ status: 'succeeded', amount: 4_200 });
    await waitFor('the webhook', () => webhooksOf(world, request.referenceId).length === 1);
    // A retried validation (its answer lost) changes nothing and says where the charge is.
    expect(await world.cards.validateOtp(request.referenceId, kept.flwRef, FAKE_CARD_OTP)).toEqual({ kind: 'accepted' });
  });

  test('0020 with a wrong OTP: refused INVALID_OTP, the charge failed INVALID_OTP at the aggregator, one webhook; the right OTP after it is refused too', async () => {
    const request = cardRequest();
    const answer = await world.cards.chargeCard(request, card('0020'));
    const flwRef = answer.kind === 'accepted' ? answer.flwRef! : '';
    expect(await world.cards.validateOtp(request.referenceId, flwRef, '654321')).toEqual({ kind: 'refused', reason: 'INVALID_OTP', failureClass: 'declined' });
    expect(await world.rail.status('collection', request.referenceId)).toMatchObject({ status: 'failed', reason: 'INVALID_OTP', failureClass: 'declined' });
    await waitFor('the webhook', () => webhooksOf(world, request.referenceId).length === 1);
    expect(await world.cards.validateOtp(request.referenceId, flwRef, FAKE_CARD_OTP)).toEqual({ kind: 'refused', reason: 'INVALID_OTP', failureClass: 'declined' });
  });

  test('validate-charge: an unknown flw_ref is refused TRANSACTION_NOT_FOUND; a charge that awaits no OTP is refused; another charge\'s flw_ref is no answer', async () => {
    expect(await world.cards.validateOtp(cardRequest().referenceId, 'FAKE-CH-1', FAKE_CARD_OTP)).toEqual({ kind: 'refused', reason: 'TRANSACTION_NOT_FOUND', failureClass: 'declined' });
    const plain = cardRequest();
    const accepted = await world.cards.chargeCard(plain, card('4242'));
    const flwRef = accepted.kind === 'accepted' ? accepted.flwRef! : '';
    expect(await world.cards.validateOtp(plain.referenceId, flwRef, FAKE_CARD_OTP)).toEqual({ kind: 'refused', reason: 'INVALID_REQUEST', failureClass: 'declined' });
    const otp = cardRequest();
    const challenged = await world.cards.chargeCard(otp, card('0020'));
    await expect(world.cards.validateOtp(plain.referenceId, challenged.kind === 'accepted' ? challenged.flwRef! : '', FAKE_CARD_OTP)).rejects.toBeInstanceOf(RailUnavailable);
  });

  test.each([
    ['authenticate', 'successful', { status: 'succeeded' }],
    ['cancel', 'cancelled', { status: 'failed', reason: 'CUSTOMER_DECLINED', failureClass: 'declined' }],
  ] as const)('0021, %s on the fake\'s 3-D Secure page: back to the redirect_url with status=%s and the tx_ref; the charge final at once, one webhook', async (action, outcome, final) => {
    const request = cardRequest();
    const answer = await world.cards.chargeCard(request, card('0021'));
    const kept = world.fake.transaction('collection', request.referenceId)!;
    expect(answer).toMatchObject({ kind: 'accepted', flwRef: kept.flwRef, challenge: { mode: 'redirect', url: `${world.fake.url}/_fake/3ds/${kept.flwRef}` } });
    const url = answer.kind === 'accepted' && answer.challenge?.mode === 'redirect' ? answer.challenge.url : '';
    const { page, after } = await threeDs(url, action);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.html).not.toMatch(/<script/i);
    expect(page.html).toContain('id="authenticate"');
    expect(page.html).toContain('id="cancel"');
    expect(page.html).toContain('42.00 USD');
    expect(after).toEqual({ status: 303, location: `${RETURN_URL}&status=${outcome}&tx_ref=${request.referenceId}` });
    expect(await world.rail.status('collection', request.referenceId)).toMatchObject(final);
    await waitFor('the webhook', () => webhooksOf(world, request.referenceId).length === 1);
    // The page is over: GET says so; a second press changes nothing and goes back the same way.
    expect((await threeDs(url)).page.status).toBe(409);
    const again = await fetch(url, { method: 'POST', body: new URLSearchParams({ action: action === 'authenticate' ? 'cancel' : 'authenticate' }), redirect: 'manual' });
    expect({ status: again.status, location: again.headers.get('location') }).toEqual(after);
    expect(await world.rail.status('collection', request.referenceId)).toMatchObject(final);
  });

  test('the 3-D Secure return keeps the redirect_url as it is: no query yet, a query, a fragment', async () => {
    for (const [redirectUrl, expected] of [
      ['https://m.example/back', 'https://m.example/back?status=successful&tx_ref='],
      ['https://m.example/back?a=b%20c&d=', 'https://m.example/back?a=b%20c&d=&status=successful&tx_ref='],
      ['https://m.example/back?x=1#top', 'https://m.example/back?x=1&status=successful&tx_ref='],
    ] as const) {
      const request = cardRequest({ redirectUrl });
      const answer = await world.cards.chargeCard(request, card('0021'));
      const { after } = await threeDs(answer.kind === 'accepted' && answer.challenge?.mode === 'redirect' ? answer.challenge.url : '', 'authenticate');
      expect(after?.location).toBe(`${expected}${request.referenceId}${redirectUrl.includes('#') ? '#top' : ''}`);
    }
  });

  test('the 3-D Secure page of an unknown flw_ref is a 404; completeChallenge in process plays the buttons', async () => {
    expect((await threeDs(`${world.fake.url}/_fake/3ds/FAKE-CH-1`)).page.status).toBe(404);
    const request = cardRequest();
    await world.cards.chargeCard(request, card('0021'));
    expect(world.fake.completeChallenge(request.referenceId, 'authenticate')).toBe('done');
    expect(world.fake.completeChallenge(request.referenceId, 'cancel')).toBe('not_awaiting');
    expect(await world.rail.status('collection', request.referenceId)).toMatchObject({ status: 'succeeded' });
    expect(world.fake.completeChallenge(cardRequest().referenceId, 'cancel')).toBe('unknown');
  });

  test('verify of a charge awaiting its challenge carries it (meta.authorization), as the duplicate does', async () => {
    const request = cardRequest();
    await world.cards.chargeCard(request, card('0021'));
    const verify = await rawCall(world, 'GET', `/v3/transactions/verify_by_reference?tx_ref=${request.referenceId}`);
    expect(verify.json.data).toMatchObject({ status: 'pending', payment_type: 'card', meta: { authorization: { mode: 'redirect' } } });
    expect(await world.cards.chargeCard(request, card('0021'))).toMatchObject({ kind: 'duplicate', challenge: { mode: 'redirect' } });
  });
});

test('a challenge never completed: failed CHARGE_TIMEOUT (timeout) at challengeExpiryMs, one webhook; its page then says it is over', async () => {
  const world = await startCardWorld({ approveAfterMs: 100, challengeExpiryMs: 300 });
  try {
    const otp = cardRequest();
    const redirect = cardRequest();
    await world.cards.chargeCard(otp, card('0020'));
    const answer = await world.cards.chargeCard(redirect, card('0021'));
    for (const request of [otp, redirect]) {
      expect(await finalStatus(world.rail, 'collection', request.referenceId, 3_000)).toMatchObject({ status: 'failed', reason: 'CHARGE_TIMEOUT', failureClass: 'timeout' });
      await waitFor('the webhook', () => webhooksOf(world, request.referenceId).length === 1);
    }
    const { page } = await threeDs(answer.kind === 'accepted' && answer.challenge?.mode === 'redirect' ? answer.challenge.url : '');
    expect(page.status).toBe(409);
    const late = await fetch(answer.kind === 'accepted' && answer.challenge?.mode === 'redirect' ? answer.challenge.url : '', { method: 'POST', body: new URLSearchParams({ action: 'authenticate' }), redirect: 'manual' });
    expect(late.headers.get('location')).toBe(`${RETURN_URL}&status=failed&tx_ref=${redirect.referenceId}`);
    expect(world.fake.transaction('collection', otp.referenceId)?.challenge).toEqual({ mode: 'otp', state: 'expired', url: null });
  } finally {
    await world.close();
  }
});
