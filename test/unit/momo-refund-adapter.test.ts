/**
 * The refund (issue 45) through the real adapter (src/rail/momo-adapter.ts) against the real fake
 * partner (src/rail/fake-partner/), over real HTTP on 127.0.0.1: the wire format, the status, the
 * callback, a duplicate, what the adapter will not send, and the partner's refusals (an unknown or
 * unpaid request-to-pay, another currency, more than was paid). The behaviours of refunds (`01NN`)
 * are in fake-partner-refund-behaviours.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import { callbackToken, verifyCallback } from '../../src/rail/momo-callback';
import { REFUND_REFUSAL } from '../../src/rail/momo-reasons';
import { RailMisconfigured, RailRequestInvalid } from '../../src/rail/rail-errors';
import { callbacksOf, chargeRequest, finalStatus, paidCharge, refundRequest, sleep, startRefundWorld, waitFor, type RefundWorld } from './momo-refund-support';

const APPROVE_MS = 120;

let world: RefundWorld;
beforeAll(async () => {
  world = await startRefundWorld({ approveAfterMs: APPROVE_MS });
});
afterAll(() => world?.close());

const refundPosts = (referenceId: string) => world.fake.requests.filter((r) => r.method === 'POST' && r.path === '/disbursement/v1_0/refund' && r.headers['x-reference-id'] === referenceId);

describe('a refund through the adapter', () => {
  test('POST /disbursement/v1_0/refund: our reference, the callback URL of the refund, the body naming the request-to-pay and no party; 202 accepted', async () => {
    const { charge } = await paidCharge(world);
    const refund = refundRequest(charge, { amount: 5_000 });
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });

    const [sent] = refundPosts(refund.referenceId);
    expect(sent!.headers).toMatchObject({
      authorization: 'Bearer [redacted]',
      'ocp-apim-subscription-key': '[redacted]',
      'x-reference-id': refund.referenceId,
      'x-target-environment': 'sandbox',
      'content-type': 'application/json',
      'x-callback-url': `${world.config.callbackBaseUrl}/partner/momo/callbacks/refund/${refund.referenceId}?token=[redacted]`,
    });
    expect(sent!.body).toEqual({
      amount: '50.00',
      currency: 'GHS',
      externalId: refund.externalId,
      payerMessage: 'Refund of order 42',
      payeeNote: 'Refund of order 42',
      referenceIdToRefund: charge.referenceId,
    });
    // Kept as a refund (its own resource), of the disbursement product, paying the payer back.
    expect(world.fake.transaction('refund', refund.referenceId)).toMatchObject({ resource: 'refund', product: 'disbursement', state: { status: expect.any(String), payee: charge.party, referenceIdToRefund: charge.referenceId } });
    expect(world.fake.transaction('disbursement', refund.referenceId)).toBeUndefined();
  });

  test("GET /disbursement/v1_0/refund/{ref}: pending, then SUCCESSFUL with the partner's id, amount and currency; one callback for the refund, verified", async () => {
    const { charge } = await paidCharge(world);
    const refund = refundRequest(charge);
    const accepted = Date.now();
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    const first = await world.rail.status('refund', refund.referenceId);
    if (Date.now() - accepted < APPROVE_MS) expect(first).toEqual({ status: 'pending' });
    const final = await finalStatus(world.rail, 'refund', refund.referenceId);
    expect(final).toEqual({ status: 'succeeded', financialTransactionId: expect.stringMatching(/^[0-9]+$/), amount: 15_000, currency: 'GHS' });
    expect(world.fake.requests.some((r) => r.method === 'GET' && r.path === `/disbursement/v1_0/refund/${refund.referenceId}`)).toBe(true);

    const [callback] = await waitFor('the callback', () => callbacksOf(world, refund.referenceId).length >= 1 && callbacksOf(world, refund.referenceId));
    expect(callback).toMatchObject({ method: 'PUT', product: 'refund' });
    expect(verifyCallback(world.config, callback!.product, refund.referenceId, callback!.token, callback!.body)).toEqual({ product: 'refund', referenceId: refund.referenceId, claimed: final });
    // The refund's token is its own: not a transfer's, and a transfer's is not the refund's.
    expect(verifyCallback(world.config, 'disbursement', refund.referenceId, callback!.token, callback!.body)).toEqual({ refused: 'forged' });
    expect(verifyCallback(world.config, 'refund', refund.referenceId, callbackToken(world.config.callbackSecret, 'disbursement', refund.referenceId), callback!.body)).toEqual({ refused: 'forged' });
    await sleep(2 * APPROVE_MS);
    expect(callbacksOf(world, refund.referenceId)).toHaveLength(1);
  });

  test("the refund goes with the disbursement product's token and credentials, not the collection's", async () => {
    const { charge } = await paidCharge(world);
    const { config } = world;
    const wrong = { apiKey: 'wrong', subscriptionKey: 'wrong' };
    const noCollection = new MomoPartnerRail({ ...config, credentials: { collection: { ...config.credentials.collection, ...wrong }, disbursement: config.credentials.disbursement } });
    const noDisbursement = new MomoPartnerRail({ ...config, credentials: { collection: config.credentials.collection, disbursement: { ...config.credentials.disbursement, ...wrong } } });
    try {
      const tokensBefore = world.fake.requests.filter((r) => r.path.endsWith('/token/')).length;
      const refund = refundRequest(charge, { amount: 100 });
      expect(await noCollection.submit('refund', refund)).toEqual({ kind: 'accepted' });
      expect(await noCollection.status('refund', refund.referenceId)).toMatchObject({ status: expect.stringMatching(/pending|succeeded/) });
      expect(world.fake.requests.filter((r) => r.path.endsWith('/token/')).slice(tokensBefore).map((r) => r.path)).toEqual(['/disbursement/token/']);

      const refused = refundRequest(charge, { amount: 100 });
      await expect(noDisbursement.submit('refund', refused)).rejects.toBeInstanceOf(RailMisconfigured);
      await expect(noDisbursement.status('refund', refund.referenceId)).rejects.toBeInstanceOf(RailMisconfigured);
      expect(world.fake.transaction('refund', refused.referenceId)).toBeUndefined();
    } finally {
      await noCollection.close();
      await noDisbursement.close();
    }
  });

  test('a second submission of the reference is a duplicate (409) and changes nothing, even once the request-to-pay is all refunded', async () => {
    const { charge } = await paidCharge(world);
    const refund = refundRequest(charge);
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    const before = world.fake.transaction('refund', refund.referenceId);
    // The retry, as sent again on every retry; and one with another amount: the first request stands.
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'duplicate' });
    expect(await world.rail.submit('refund', { ...refund, amount: 1 })).toEqual({ kind: 'duplicate' });
    // What was asked stands; the fake partner may complete the first request meanwhile (its own timer:
    // on a loaded machine it did, between the two reads), which is progress, not a change by the duplicates.
    const asked = (t: typeof before) => ({ ...t, completedAt: undefined, state: { ...t?.state, status: undefined, financialTransactionId: undefined } });
    expect(asked(world.fake.transaction('refund', refund.referenceId))).toEqual(asked(before));
    expect(await finalStatus(world.rail, 'refund', refund.referenceId)).toMatchObject({ status: 'succeeded', amount: 15_000 });
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'duplicate' });
    expect(world.fake.transactions('disbursement').filter((t) => t.state.referenceIdToRefund === charge.referenceId)).toHaveLength(1);
  });

  test('a refund reference the partner never saw is unknown; a transfer and a refund are separate resources', async () => {
    expect(await world.rail.status('refund', randomUUID())).toEqual({ status: 'unknown' });
    const { charge } = await paidCharge(world);
    const refund = refundRequest(charge, { amount: 100 });
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    expect(await world.rail.status('disbursement', refund.referenceId)).toEqual({ status: 'unknown' });
    const transfer = chargeRequest();
    expect(await world.rail.submit('disbursement', transfer)).toEqual({ kind: 'accepted' });
    expect(await world.rail.status('refund', transfer.referenceId)).toEqual({ status: 'unknown' });
  });
});

describe('what the adapter will not send: RailRequestInvalid, nothing sent', () => {
  test('a refund without referenceIdToRefund, or with one that is not a UUID; a referenceIdToRefund on a request-to-pay or transfer', async () => {
    const charge = chargeRequest();
    const before = world.fake.requests.length;
    const missing = refundRequest(charge);
    delete missing.referenceIdToRefund;
    for (const [resource, request, says] of [
      ['refund', missing, /needs referenceIdToRefund/],
      ['refund', refundRequest(charge, { referenceIdToRefund: 'txn_123' }), /referenceIdToRefund must be a UUID, got "txn_123"/],
      ['refund', refundRequest(charge, { referenceIdToRefund: '' }), /referenceIdToRefund must be a UUID/],
      ['refund', refundRequest(charge, { referenceId: 'not-a-uuid' }), /referenceId must be a UUID/],
      ['collection', { ...chargeRequest(), referenceIdToRefund: randomUUID() }, /belongs to a refund only, not to a request-to-pay/],
      ['disbursement', { ...chargeRequest(), referenceIdToRefund: randomUUID() }, /belongs to a refund only, not to a transfer/],
    ] as const) {
      const error = await world.rail.submit(resource, request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RailRequestInvalid);
      expect(error).toMatchObject({ retryable: false });
      expect((error as Error).message).toMatch(says);
    }
    expect(world.fake.requests.length).toBe(before);
  });
});

describe("the partner's refusals of a refund: refused at once, nothing kept", () => {
  const refusedWith = (reason: string) => ({ kind: 'refused', reason, failureClass: 'declined' });

  test(`a request-to-pay it does not keep (none, or a transfer's reference): 404 ${REFUND_REFUSAL.unknownOriginal}, declined`, async () => {
    const nothing = refundRequest(chargeRequest());
    expect(await world.rail.submit('refund', nothing)).toEqual(refusedWith('REFERENCE_ID_TO_REFUND_NOT_FOUND'));
    expect(world.fake.transaction('refund', nothing.referenceId)).toBeUndefined();
    expect(await world.rail.status('refund', nothing.referenceId)).toEqual({ status: 'unknown' });

    const transfer = chargeRequest();
    expect(await world.rail.submit('disbursement', transfer)).toEqual({ kind: 'accepted' });
    await finalStatus(world.rail, 'disbursement', transfer.referenceId);
    expect(await world.rail.submit('refund', refundRequest(transfer))).toEqual(refusedWith('REFERENCE_ID_TO_REFUND_NOT_FOUND'));
  });

  test('a request-to-pay not SUCCESSFUL (still PENDING, or FAILED): 400 NOT_ALLOWED, declined', async () => {
    const pending = chargeRequest('0004');
    expect(await world.rail.submit('collection', pending)).toEqual({ kind: 'accepted' });
    const early = refundRequest(pending);
    expect(await world.rail.submit('refund', early)).toEqual(refusedWith('NOT_ALLOWED'));
    expect(world.fake.transaction('refund', early.referenceId)).toBeUndefined();

    const { charge: failed, final } = await paidCharge(world, '0001');
    expect(final).toMatchObject({ status: 'failed', reason: 'NOT_ENOUGH_FUNDS' });
    expect(await world.rail.submit('refund', refundRequest(failed))).toEqual(refusedWith('NOT_ALLOWED'));
    // The same reference, refused, may be sent again: refused again (nothing was kept).
    expect(await world.rail.submit('refund', early)).toEqual(refusedWith('NOT_ALLOWED'));
    // Once the request-to-pay is paid, it may be refunded.
    expect(world.fake.settle('collection', pending.referenceId, { status: 'SUCCESSFUL' }, { callback: false })).toBe(true);
    expect(await world.rail.submit('refund', early)).toEqual({ kind: 'accepted' });
  });

  test('another currency than the request-to-pay: 400 INVALID_CURRENCY, declined', async () => {
    const { charge } = await paidCharge(world);
    const other = refundRequest(charge, { currency: 'NGN' });
    expect(await world.rail.submit('refund', other)).toEqual(refusedWith('INVALID_CURRENCY'));
    expect(world.fake.transaction('refund', other.referenceId)).toBeUndefined();
  });

  test(`more than was paid, over all its refunds not FAILED (PENDING ones count): 400 ${REFUND_REFUSAL.exceedsOriginal}, declined`, async () => {
    const { charge } = await paidCharge(world); // 150.00 GHS
    expect(await world.rail.submit('refund', refundRequest(charge, { amount: 15_001 }))).toEqual(refusedWith('REFUND_EXCEEDS_ORIGINAL_AMOUNT'));
    expect(await world.rail.submit('refund', refundRequest(charge, { amount: 10_000 }))).toEqual({ kind: 'accepted' });
    const over = refundRequest(charge, { amount: 6_000 });
    expect(await world.rail.submit('refund', over)).toEqual(refusedWith('REFUND_EXCEEDS_ORIGINAL_AMOUNT'));
    expect(world.fake.transaction('refund', over.referenceId)).toBeUndefined();
    // Exactly what is left is allowed; then not one minor unit more.
    expect(await world.rail.submit('refund', refundRequest(charge, { amount: 5_000 }))).toEqual({ kind: 'accepted' });
    expect(await world.rail.submit('refund', refundRequest(charge, { amount: 1 }))).toEqual(refusedWith('REFUND_EXCEEDS_ORIGINAL_AMOUNT'));
    const refunds = world.fake.transactions('disbursement').filter((t) => t.resource === 'refund' && t.state.referenceIdToRefund === charge.referenceId);
    expect(refunds.map((t) => t.state.amount)).toEqual(['100.00', '50.00']);

    // A FAILED refund gave nothing back: it does not count. A PENDING one may still pay: it does.
    const { charge: fails } = await paidCharge(world, '0101'); // its refunds fail later (NOT_ENOUGH_FUNDS)
    const failing = refundRequest(fails);
    expect(await world.rail.submit('refund', failing)).toEqual({ kind: 'accepted' });
    expect(await world.rail.submit('refund', refundRequest(fails))).toEqual(refusedWith('REFUND_EXCEEDS_ORIGINAL_AMOUNT')); // the first still PENDING
    expect(await finalStatus(world.rail, 'refund', failing.referenceId)).toMatchObject({ status: 'failed', reason: 'NOT_ENOUGH_FUNDS' });
    expect(await world.rail.submit('refund', refundRequest(fails))).toEqual({ kind: 'accepted' });
  });

  test('a body the partner cannot read: 400 INVALID_REQUEST (the fake over plain HTTP)', async () => {
    const { charge } = await paidCharge(world);
    const { apiUser, apiKey, subscriptionKey } = world.fake.config;
    const tokenAnswer = await fetch(`${world.fake.url}/disbursement/token/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`, 'ocp-apim-subscription-key': subscriptionKey } });
    const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
    const post = (body: unknown, bearer = token) =>
      fetch(`${world.fake.url}/disbursement/v1_0/refund`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'ocp-apim-subscription-key': subscriptionKey, 'x-target-environment': 'sandbox', 'x-reference-id': randomUUID(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const good = { amount: '1.00', currency: 'GHS', externalId: 're_x', payerMessage: '', payeeNote: '', referenceIdToRefund: charge.referenceId };
    for (const bad of [{ ...good, referenceIdToRefund: undefined }, { ...good, referenceIdToRefund: 'txn_1' }, { ...good, amount: '-1' }, { ...good, externalId: '' }, { ...good, amount: '1.005' }]) {
      const answer = await post(bad);
      expect({ bad, status: answer.status, body: await answer.json() }).toEqual({ bad, status: 400, body: expect.objectContaining({ code: 'INVALID_REQUEST' }) });
    }
    // A collection token does not open the disbursement product's refund.
    const collectionToken = (await (await fetch(`${world.fake.url}/collection/token/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`, 'ocp-apim-subscription-key': subscriptionKey } })).json()) as { access_token: string };
    expect((await post(good, collectionToken.access_token)).status).toBe(401);
    expect((await post(good)).status).toBe(202);
  });
});
