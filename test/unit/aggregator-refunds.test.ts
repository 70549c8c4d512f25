import { randomUUID } from 'node:crypto';
import { bankChargeRequest, chargeRequest, finalStatus, paidCharge, refundRequest, startAggregatorWorld, waitFor, webhooksOf, type AggregatorWorld } from './aggregator-support';

/**
 * Refunds through the aggregator: the adapter finds the charge's id by its tx_ref, posts the refund
 * with our reference as its idempotency key, and asks its status by that reference.
 */
describe('refunds through the aggregator', () => {
  let world: AggregatorWorld;
  beforeAll(async () => {
    world = await startAggregatorWorld({ approveAfterMs: 250 });
  });
  afterAll(() => world?.close());

  test('a partial refund, then the rest: each accepted, completed, on the charge; one more minor unit is refused (REFUND_EXCEEDS_AMOUNT)', async () => {
    const { charge } = await paidCharge(world);
    const chargeId = world.fake.transaction('collection', charge.referenceId)!.id;
    const part = refundRequest(charge, { amount: 5_005 });
    expect(await world.rail.submit('refund', part)).toEqual({ kind: 'accepted' });
    const posted = world.fake.requests.find((r) => (r.body as { reference?: string })?.reference === part.referenceId)!;
    expect(posted.path).toBe(`/v3/transactions/${chargeId}/refund`);
    expect(posted.body).toEqual({ amount: 50.05, currency: 'GHS', reference: part.referenceId, comments: 'Refund of order 42', meta: { external_id: part.externalId } });
    expect(await world.rail.status('refund', part.referenceId)).toEqual({ status: 'pending' });
    const done = await finalStatus(world.rail, 'refund', part.referenceId);
    expect(done).toEqual({ status: 'succeeded', financialTransactionId: String(world.fake.transaction('refund', part.referenceId)!.id), amount: 5_005, currency: 'GHS' });

    const rest = refundRequest(charge, { amount: 10_000 });
    expect(await world.rail.submit('refund', rest)).toEqual({ kind: 'accepted' });
    expect(world.fake.transaction('refund', rest.referenceId)).toMatchObject({ charge: { referenceId: charge.referenceId, id: chargeId }, partyId: charge.party.partyId, product: 'disbursement' });
    expect(await world.rail.submit('refund', refundRequest(charge, { amount: 1 }))).toEqual({ kind: 'refused', reason: 'REFUND_EXCEEDS_AMOUNT', failureClass: 'declined' });
    await finalStatus(world.rail, 'refund', rest.referenceId);
    await waitFor('the refund webhooks', () => webhooksOf(world, rest.referenceId).length === 1);
    expect(webhooksOf(world, rest.referenceId)[0].verified).toMatchObject({ product: 'refund', claimed: { status: 'succeeded', amount: 10_000 } });
    expect(JSON.parse(webhooksOf(world, rest.referenceId)[0].body)).toMatchObject({ event: 'refund.completed', data: { reference: rest.referenceId, tx_ref: charge.referenceId, status: 'completed' } });
  });

  test('a full refund in one; an over-refund asked at once is refused, nothing kept', async () => {
    const { charge } = await paidCharge(world);
    const over = refundRequest(charge, { amount: charge.amount + 1 });
    expect(await world.rail.submit('refund', over)).toEqual({ kind: 'refused', reason: 'REFUND_EXCEEDS_AMOUNT', failureClass: 'declined' });
    expect(world.fake.transaction('refund', over.referenceId)).toBeUndefined();
    const full = refundRequest(charge);
    expect(await world.rail.submit('refund', full)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'refund', full.referenceId)).toMatchObject({ status: 'succeeded', amount: charge.amount });
  });

  test('the same refund reference again is a duplicate, even once nothing is left to refund; the books keep one refund', async () => {
    const { charge } = await paidCharge(world);
    const refund = refundRequest(charge);
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'duplicate' });
    expect(world.fake.transactions('disbursement').filter((t) => t.charge?.referenceId === charge.referenceId)).toHaveLength(1);
  });

  test('refused: a charge the aggregator does not know, one still pending, one failed; another currency', async () => {
    expect(await world.rail.submit('refund', refundRequest(chargeRequest()))).toEqual({ kind: 'refused', reason: 'TRANSACTION_NOT_FOUND', failureClass: 'declined' });
    const pending = chargeRequest('0004');
    await world.rail.submit('collection', pending);
    expect(await world.rail.submit('refund', refundRequest(pending))).toEqual({ kind: 'refused', reason: 'REFUND_NOT_ALLOWED', failureClass: 'declined' });
    const { charge: failed, final } = await paidCharge(world, '0001');
    expect(final).toMatchObject({ status: 'failed', reason: 'INSUFFICIENT_FUNDS', failureClass: 'insufficient_funds' });
    expect(await world.rail.submit('refund', refundRequest(failed))).toMatchObject({ kind: 'refused', reason: 'REFUND_NOT_ALLOWED' });
    const { charge } = await paidCharge(world);
    // Sent as the engine never would (another currency, same amount digits): the aggregator checks it.
    expect(await world.rail.submit('refund', refundRequest(charge, { currency: 'KES' }))).toEqual({ kind: 'refused', reason: 'REFUND_CURRENCY_MISMATCH', failureClass: 'declined' });
    await expect(world.rail.submit('refund', refundRequest(charge, { referenceIdToRefund: 'nope' }))).rejects.toMatchObject({ name: 'RailRequestInvalid' });
  });

  test("a refund plays what its charge's payer chose: 0101 fails later, 0102 is refused at once, 0113 refuses a copy (the adapter asks and reads a duplicate), 0115 completes one unit short", async () => {
    const later = (await paidCharge(world, '0101')).charge;
    const r1 = refundRequest(later);
    expect(await world.rail.submit('refund', r1)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'refund', r1.referenceId)).toEqual({ status: 'failed', reason: 'INSUFFICIENT_FUNDS', failureClass: 'insufficient_funds', amount: later.amount, currency: 'GHS' });

    const now = (await paidCharge(world, '0102')).charge;
    expect(await world.rail.submit('refund', refundRequest(now))).toEqual({ kind: 'refused', reason: 'INVALID_PHONE', failureClass: 'invalid_recipient' });

    const copies = (await paidCharge(world, '0113')).charge;
    const r3 = refundRequest(copies, { amount: 100 });
    expect(await world.rail.submit('refund', r3)).toEqual({ kind: 'accepted' });
    expect(await world.rail.submit('refund', r3)).toEqual({ kind: 'duplicate' });
    expect(world.fake.requests.filter((r) => r.path === `/v3/refunds?reference=${r3.referenceId}`).length).toBeGreaterThanOrEqual(1);

    const short = (await paidCharge(world, '0115')).charge;
    const r4 = refundRequest(short);
    await world.rail.submit('refund', r4);
    expect(await finalStatus(world.rail, 'refund', r4.referenceId)).toMatchObject({ status: 'succeeded', amount: short.amount - 1 });
  });

  test("a bank-transfer charge's refund pays back the payer account; refused at once with INVALID_ACCOUNT for a 0102 account", async () => {
    const charge = bankChargeRequest('0102');
    await world.rail.submit('collection', charge);
    await finalStatus(world.rail, 'collection', charge.referenceId);
    expect(await world.rail.submit('refund', refundRequest(charge))).toEqual({ kind: 'refused', reason: 'INVALID_ACCOUNT', failureClass: 'invalid_recipient' });
    const plain = bankChargeRequest('5678');
    await world.rail.submit('collection', plain);
    await finalStatus(world.rail, 'collection', plain.referenceId);
    const refund = refundRequest(plain, { amount: 5 });
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    expect(world.fake.transaction('refund', refund.referenceId)).toMatchObject({ partyKind: 'BANK_ACCOUNT', partyId: 'GCB:1002005678' });
    expect(await world.rail.status('collection', refund.referenceId)).toEqual({ status: 'unknown' });
    expect(await world.rail.status('refund', randomUUID())).toEqual({ status: 'unknown' });
  });
});
