import { randomUUID } from 'node:crypto';
import { verifyAggregatorWebhook } from '../../src/rail/aggregator/webhook';
import { chargeRequest, finalStatus, startAggregatorWorld, transferRequest, waitFor } from './aggregator-support';

const HASH = 'h'.repeat(20) + 'ASH-of-the-merchant-dashboard';
const ref = randomUUID();
const charge = (data: Record<string, unknown> = {}) => JSON.stringify({ event: 'charge.completed', 'event.type': 'MOBILEMONEY_TRANSACTION', data: { id: 4321, tx_ref: ref, amount: 150.05, currency: 'GHS', status: 'successful', ...data } });

describe('verifyAggregatorWebhook', () => {
  test('the right hash and a charge.completed body: the callback, its claim read as a status', () => {
    expect(verifyAggregatorWebhook(HASH, { 'verif-hash': HASH }, charge())).toEqual({ product: 'collection', referenceId: ref, claimed: { status: 'succeeded', financialTransactionId: '4321', amount: 15_005, currency: 'GHS' } });
    // Header names in any case (a framework that does not lower-case them).
    expect(verifyAggregatorWebhook(HASH, { 'Verif-Hash': HASH }, charge())).toMatchObject({ product: 'collection' });
  });

  test('transfer.completed and refund.completed: our reference is `reference`; failures keep their code and class', () => {
    const transfer = JSON.stringify({ event: 'transfer.completed', data: { id: 77, reference: ref, amount: 2500, currency: 'GHS', status: 'FAILED', complete_message: 'Account resolve failed' } });
    expect(verifyAggregatorWebhook(HASH, { 'verif-hash': HASH }, transfer)).toEqual({ product: 'disbursement', referenceId: ref, claimed: { status: 'failed', reason: 'INVALID_ACCOUNT', failureClass: 'invalid_recipient', amount: 250_000, currency: 'GHS' } });
    const refund = JSON.stringify({ event: 'refund.completed', data: { id: 78, reference: ref, tx_ref: randomUUID(), amount_refunded: 5000, currency: 'UGX', status: 'completed' } });
    expect(verifyAggregatorWebhook(HASH, { 'verif-hash': HASH }, refund)).toEqual({ product: 'refund', referenceId: ref, claimed: { status: 'succeeded', financialTransactionId: '78', amount: 5_000, currency: 'UGX' } });
  });

  test('forged: no header, a wrong hash (longer, shorter, one character off, empty), the header twice, or no hash configured', () => {
    for (const headers of [{}, { 'verif-hash': HASH + 'x' }, { 'verif-hash': HASH.slice(1) }, { 'verif-hash': `${HASH.slice(0, -1)}X` }, { 'verif-hash': '' }, { 'verif-hash': [HASH, HASH] }, { 'verif-hash': undefined }, { 'x-verif-hash': HASH }]) {
      expect(verifyAggregatorWebhook(HASH, headers, charge())).toEqual({ refused: 'forged' });
    }
    expect(verifyAggregatorWebhook('', { 'verif-hash': '' }, charge())).toEqual({ refused: 'forged' });
  });

  test('malformed: the right hash but not an event we read', () => {
    const bodies = [
      'not json',
      '[]',
      JSON.stringify({ event: 'subscription.cancelled', data: { tx_ref: ref, status: 'successful' } }),
      JSON.stringify({ event: 'charge.completed' }),
      charge({ tx_ref: 'ORDER-42' }), // not a reference we could have made
      charge({ tx_ref: undefined, reference: ref }), // a charge's reference is its tx_ref
      charge({ status: 'weird' }),
      JSON.stringify({ event: 'transfer.completed', data: { reference: ref, status: 'successful?' } }),
    ];
    for (const body of bodies) expect(verifyAggregatorWebhook(HASH, { 'verif-hash': HASH }, body)).toEqual({ refused: 'malformed' });
  });

  test("the fake's webhooks pass, with the fake's hash and no other", async () => {
    const world = await startAggregatorWorld({ approveAfterMs: 30 });
    try {
      const c = chargeRequest('0001');
      const t = transferRequest();
      await world.rail.submit('collection', c);
      await world.rail.submit('disbursement', t);
      await finalStatus(world.rail, 'collection', c.referenceId);
      await finalStatus(world.rail, 'disbursement', t.referenceId);
      await waitFor('two webhooks', () => world.received.length >= 2);
      const byRef = Object.fromEntries(world.received.map((r) => ['referenceId' in r.verified ? r.verified.referenceId : '?', r]));
      expect(byRef[c.referenceId].verified).toEqual({ product: 'collection', referenceId: c.referenceId, claimed: { status: 'failed', reason: 'INSUFFICIENT_FUNDS', failureClass: 'insufficient_funds', amount: c.amount, currency: 'GHS' } });
      expect(byRef[t.referenceId].verified).toMatchObject({ product: 'disbursement', claimed: { status: 'succeeded' } });
      expect(byRef[c.referenceId].headers['verif-hash']).toBe(world.fake.webhookHash);
      expect(verifyAggregatorWebhook('another-hash-of-at-least-32-chars!!', byRef[c.referenceId].headers as Record<string, string>, byRef[c.referenceId].body)).toEqual({ refused: 'forged' });
      expect(world.fake.webhooksSent.every((w) => 'status' in w.outcome && w.outcome.status === 200)).toBe(true);
      expect(JSON.stringify(world.fake.webhooksSent)).not.toContain(world.fake.webhookHash);
    } finally {
      await world.close();
    }
  });
});
