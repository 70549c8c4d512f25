import { randomUUID } from 'node:crypto';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import { chargeTarget, transferTarget } from '../../src/rail/aggregator/party';
import type { RailParty, RailRequest } from '../../src/rail/partner-rail';
import { RailRequestInvalid } from '../../src/rail/rail-errors';
import { chargeRequest, finalStatus, refundRequest, transferRequest, waitFor, webhooksOf } from './aggregator-support';
import { card, cardRequest, startCardWorld, type CardWorld } from './aggregator-card-support';

/** A card charge's refund goes through AggregatorRail.submit('refund') with a CARD party (its last four): never a phone number, never MoMo. */
describe('refunds of card charges', () => {
  let world: CardWorld;
  beforeAll(async () => {
    world = await startCardWorld({ approveAfterMs: 200 });
  });
  afterAll(() => world?.close());

  /** A card charge through the card client, waited for until successful, and its refund request with the engine's CARD party. */
  async function paidCardCharge(last4: string): Promise<RailRequest> {
    const request = cardRequest();
    expect(await world.cards.chargeCard(request, card(last4))).toMatchObject({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'collection', request.referenceId)).toMatchObject({ status: 'succeeded' });
    const party: RailParty = { partyIdType: 'CARD', partyId: last4 };
    return { referenceId: request.referenceId, amount: request.amount, currency: request.currency, externalId: request.externalId, party, message: request.message };
  }

  test('a part then the rest: accepted, succeeded with the aggregator\'s id and amount; kept as a refund to the card; on the disbursement statement as ****4242', async () => {
    const charge = await paidCardCharge('4242');
    const part = refundRequest(charge, { amount: 1_200 });
    expect(await world.rail.submit('refund', part)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'refund', part.referenceId)).toMatchObject({ status: 'succeeded', amount: 1_200, currency: 'USD' });
    const rest = refundRequest(charge, { amount: 3_000 });
    expect(await world.rail.submit('refund', rest)).toEqual({ kind: 'accepted' });
    expect(await world.rail.submit('refund', refundRequest(charge, { amount: 1 }))).toEqual({ kind: 'refused', reason: 'REFUND_EXCEEDS_AMOUNT', failureClass: 'declined' });
    const kept = world.fake.transaction('refund', part.referenceId)!;
    expect(kept).toMatchObject({ partyKind: 'CARD', charge: { referenceId: charge.referenceId } });
    expect(kept.partyId.endsWith('4242')).toBe(true);
    const sent = world.fake.requests.find((r) => (r.body as { reference?: string })?.reference === part.referenceId)!;
    expect(sent.body).toEqual({ amount: 12, currency: 'USD', reference: part.referenceId, comments: 'Refund of order 42', meta: { external_id: part.externalId } });
    const line = world.fake.statement('disbursement', new Date().toISOString().slice(0, 10)).lines.find((l) => l.referenceId === part.referenceId)!;
    expect(line.party).toBe('****4242');
    await waitFor('the refund webhook', () => webhooksOf(world, part.referenceId).length === 1);
  });

  test('a card ending 01NN plays 00NN on its refunds: 0102 refused INVALID_CARD at once, 0101 failed later INSUFFICIENT_FUNDS', async () => {
    const refused = refundRequest(await paidCardCharge('0102'));
    expect(await world.rail.submit('refund', refused)).toEqual({ kind: 'refused', reason: 'INVALID_CARD', failureClass: 'declined' });
    const later = refundRequest(await paidCardCharge('0101'));
    expect(await world.rail.submit('refund', later)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'refund', later.referenceId)).toMatchObject({ status: 'failed', reason: 'INSUFFICIENT_FUNDS' });
  });

  test('a CARD party is never charged nor paid through submit, and never read as a phone number: RailRequestInvalid before any request', async () => {
    const sent = world.fake.requests.length;
    const party: RailParty = { partyIdType: 'CARD', partyId: '4242' };
    await expect(world.rail.submit('collection', chargeRequest('4242', { party }))).rejects.toBeInstanceOf(RailRequestInvalid);
    await expect(world.rail.submit('disbursement', transferRequest('4242', { party }))).rejects.toBeInstanceOf(RailRequestInvalid);
    // Even a card's party that looks like a phone number is not one.
    const phoneLike: RailParty = { partyIdType: 'CARD', partyId: '233241234242' };
    for (const currency of ['GHS', 'KES']) {
      expect(() => chargeTarget(phoneLike, currency)).toThrow(/CARD party/);
      expect(() => transferTarget(phoneLike, currency)).toThrow(/CARD party/);
    }
    expect(world.fake.requests.length).toBe(sent);
  });
});

test('the MoMo adapter refuses a CARD party, whatever the resource, before any request', async () => {
  const rail = new MomoPartnerRail({
    baseUrl: 'http://127.0.0.1:1',
    credentials: { collection: { apiUser: randomUUID(), apiKey: 'k'.repeat(32), subscriptionKey: 's'.repeat(32) }, disbursement: { apiUser: randomUUID(), apiKey: 'k'.repeat(32), subscriptionKey: 's'.repeat(32) } },
    targetEnvironment: 'sandbox',
    callbackBaseUrl: 'http://127.0.0.1:2',
    callbackSecret: 'c'.repeat(43),
    timeoutMs: 500,
  });
  try {
    const party: RailParty = { partyIdType: 'CARD', partyId: '4242' };
    await expect(rail.submit('collection', chargeRequest('4242', { party }))).rejects.toThrow(RailRequestInvalid);
    await expect(rail.submit('disbursement', transferRequest('4242', { party }))).rejects.toThrow(RailRequestInvalid);
    await expect(rail.submit('refund', refundRequest(chargeRequest('4242', { party })))).rejects.toThrow(/CARD party/);
  } finally {
    await rail.close();
  }
});
