import { randomUUID } from 'node:crypto';
import { accountOpenSeconds } from '../../src/rail/aggregator/adapter';
import { bankChargeRequest, finalStatus, sleep, startAggregatorWorld, waitFor, webhooksOf, type AggregatorWorld } from './aggregator-support';

/**
 * A bank-transfer collection (a BANK_ACCOUNT payer): accepted with the account to pay into, paid by
 * the customer (settle, the fake's pay control, or by itself after approveAfterMs), or expired.
 */
describe('bank-transfer charges through the aggregator', () => {
  let world: AggregatorWorld;
  beforeAll(async () => {
    world = await startAggregatorWorld({ approveAfterMs: 400, bankTransferExpiryMs: 1_500 });
  });
  afterAll(() => world?.close());

  test('accepted with instructions: the virtual account, its bank and name, the amount in minor units, the expiry; pending with them while open; paid by itself after approveAfterMs', async () => {
    const started = Date.now();
    const charge = bankChargeRequest('5678', { amount: 15_005 });
    const submitted = await world.rail.submit('collection', charge);
    const kept = world.fake.transaction('collection', charge.referenceId)!;
    expect(submitted).toEqual({
      kind: 'accepted',
      instructions: {
        kind: 'bank_transfer',
        bankName: 'Fake Aggregator Bank',
        accountNumber: kept.instructions!.accountNumber,
        accountName: 'Fake Aggregator Collections',
        amount: 15_005,
        currency: 'GHS',
        expiresAt: new Date(kept.instructions!.expiresAt).toISOString(),
      },
    });
    const expiresIn = Date.parse(submitted.kind === 'accepted' ? submitted.instructions!.expiresAt : '') - started;
    expect(expiresIn).toBeGreaterThanOrEqual(1_480);
    expect(expiresIn).toBeLessThan(4_000);
    const sent = world.fake.requests.find((r) => (r.body as { tx_ref?: string })?.tx_ref === charge.referenceId)!;
    expect(sent.path).toBe('/v3/charges?type=bank_transfer');
    expect(sent.body).toMatchObject({ account_bank: 'GCB', account_number: '1002005678', amount: 150.05 });

    const pending = await world.rail.status('collection', charge.referenceId);
    expect(pending).toEqual({ status: 'pending', instructions: submitted.kind === 'accepted' ? submitted.instructions : undefined });
    // A retried submission shows the customer the same account.
    expect(await world.rail.submit('collection', charge)).toEqual({ kind: 'duplicate', instructions: submitted.kind === 'accepted' ? submitted.instructions : undefined });

    expect(await finalStatus(world.rail, 'collection', charge.referenceId)).toEqual({ status: 'succeeded', financialTransactionId: String(kept.id), amount: 15_005, currency: 'GHS' });
    await waitFor('the webhook', () => webhooksOf(world, charge.referenceId).length === 1);
    expect(webhooksOf(world, charge.referenceId)[0].verified).toMatchObject({ claimed: { status: 'succeeded' } });
    expect(JSON.parse(webhooksOf(world, charge.referenceId)[0].body)).toMatchObject({ event: 'charge.completed', 'event.type': 'BANK_TRANSFER_TRANSACTION', data: { payment_type: 'bank_transfer', status: 'successful' } });
  });

  test('unpaid (0004, the customer never pays): failed ACCOUNT_EXPIRED (timeout) at its expiry; no webhook (0004 sends none); paying it after is refused', async () => {
    const charge = bankChargeRequest('0004');
    expect(await world.rail.submit('collection', charge)).toMatchObject({ kind: 'accepted', instructions: { kind: 'bank_transfer' } });
    await sleep(150);
    expect(await world.rail.status('collection', charge.referenceId)).toMatchObject({ status: 'pending', instructions: { kind: 'bank_transfer' } });
    expect(await finalStatus(world.rail, 'collection', charge.referenceId)).toEqual({ status: 'failed', reason: 'ACCOUNT_EXPIRED', failureClass: 'timeout', amount: charge.amount, currency: 'GHS' });
    expect(world.fake.pay(charge.referenceId)).toBe('not_payable');
    await sleep(50);
    expect(webhooksOf(world, charge.referenceId)).toEqual([]);
  });

  test('the customer pays with the control endpoint POST /_fake/pay/{tx_ref} (no key: the customer is no merchant); unknown or final charges are refused', async () => {
    const charge = bankChargeRequest('0004', { amount: 200 }); // 0004: never pays by itself
    await world.rail.submit('collection', charge);
    const paid = await fetch(`${world.fake.url}/_fake/pay/${charge.referenceId}`, { method: 'POST' });
    expect(paid.status).toBe(200);
    expect(await paid.json()).toMatchObject({ status: 'success', data: { tx_ref: charge.referenceId, status: 'successful' } });
    expect(await world.rail.status('collection', charge.referenceId)).toMatchObject({ status: 'succeeded', amount: 200 });
    expect((await fetch(`${world.fake.url}/_fake/pay/${charge.referenceId}`, { method: 'POST' })).status).toBe(409);
    expect((await fetch(`${world.fake.url}/_fake/pay/${randomUUID()}`, { method: 'POST' })).status).toBe(404);
  });

  test('settle(): paid now whatever the behaviour, with one webhook (or none); a 0015 payer pays one minor unit less', async () => {
    const charge = bankChargeRequest('0004');
    await world.rail.submit('collection', charge);
    expect(world.fake.settle('collection', charge.referenceId, { status: 'successful' })).toBe(true);
    expect(await world.rail.status('collection', charge.referenceId)).toMatchObject({ status: 'succeeded', amount: charge.amount });
    await waitFor('the settle webhook', () => webhooksOf(world, charge.referenceId).length === 1);

    const short = bankChargeRequest('0015', { amount: 10_000 });
    await world.rail.submit('collection', short);
    expect(await finalStatus(world.rail, 'collection', short.referenceId)).toMatchObject({ status: 'succeeded', amount: 9_999, currency: 'GHS' });
  });

  test('refused at once: a payer account ending 0002 (INVALID_ACCOUNT, invalid_recipient)', async () => {
    expect(await world.rail.submit('collection', bankChargeRequest('0002'))).toEqual({ kind: 'refused', reason: 'INVALID_ACCOUNT', failureClass: 'invalid_recipient' });
  });

  test("the charge's expiry goes as `expires`: the account closes when the charge does (at most the fake's own limit); a charge without one sends none", async () => {
    const started = Date.now();
    const charge = { ...bankChargeRequest('0004'), expiresAt: new Date(started + 800).toISOString() };
    const submitted = await world.rail.submit('collection', charge);
    const sent = world.fake.requests.find((r) => (r.body as { tx_ref?: string })?.tx_ref === charge.referenceId)!;
    expect((sent.body as { expires?: number }).expires).toBe(1);
    const closesIn = Date.parse(submitted.kind === 'accepted' ? submitted.instructions!.expiresAt : '') - started;
    expect(closesIn).toBeGreaterThanOrEqual(900);
    expect(closesIn).toBeLessThan(1_480);
    expect(await finalStatus(world.rail, 'collection', charge.referenceId)).toMatchObject({ status: 'failed', reason: 'ACCOUNT_EXPIRED' });
    // A charge expiring after the fake's own limit (1.5 s here): the limit.
    const later = { ...bankChargeRequest('0004'), expiresAt: new Date(Date.now() + 15 * 60_000).toISOString() };
    await world.rail.submit('collection', later);
    expect((world.fake.requests.find((r) => (r.body as { tx_ref?: string })?.tx_ref === later.referenceId)!.body as { expires?: number }).expires).toBe(900);
    const plain = bankChargeRequest('5678');
    await world.rail.submit('collection', plain);
    expect(world.fake.requests.find((r) => (r.body as { tx_ref?: string })?.tx_ref === plain.referenceId)!.body).not.toHaveProperty('expires');
  });

  test('accountOpenSeconds: whole seconds to the expiry, at least 1, at most 5 days; an expiry that is not an instant is refused before any call', () => {
    expect(accountOpenSeconds(undefined)).toBeUndefined();
    expect(accountOpenSeconds('2026-01-01T00:15:00.000Z', Date.parse('2026-01-01T00:00:00.000Z'))).toBe(900);
    expect(accountOpenSeconds('2026-01-01T00:00:00.500Z', Date.parse('2026-01-01T00:00:00.000Z'))).toBe(1);
    expect(accountOpenSeconds('2025-12-31T00:00:00.000Z', Date.parse('2026-01-01T00:00:00.000Z'))).toBe(1);
    expect(accountOpenSeconds('2026-02-01T00:00:00.000Z', Date.parse('2026-01-01T00:00:00.000Z'))).toBe(432_000);
    expect(() => accountOpenSeconds('tomorrow')).toThrow(/expiresAt must be an ISO instant/);
  });
});
