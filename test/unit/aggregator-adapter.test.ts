import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { AggregatorRail } from '../../src/rail/aggregator/adapter';
import { RailUnavailable } from '../../src/rail/partner-rail';
import { RailMisconfigured, RailRequestInvalid } from '../../src/rail/rail-errors';
import { chargeRequest, finalStatus, rawCall, startAggregatorWorld, transferRequest, waitFor, webhooksOf, type AggregatorWorld } from './aggregator-support';

/** The adapter against the fake aggregator over real HTTP: mobile-money charges, transfers to banks and wallets, the answers it reads as what. */
describe('AggregatorRail against the fake aggregator', () => {
  let world: AggregatorWorld;
  beforeAll(async () => {
    world = await startAggregatorWorld({ approveAfterMs: 250 });
  });
  afterAll(() => world?.close());

  test('a mobile-money charge: accepted, pending, then succeeded with the aggregator id, amount and currency; one webhook', async () => {
    const charge = chargeRequest();
    expect(await world.rail.submit('collection', charge)).toEqual({ kind: 'accepted' });
    expect(await world.rail.status('collection', charge.referenceId)).toEqual({ status: 'pending' });
    const final = await finalStatus(world.rail, 'collection', charge.referenceId);
    const kept = world.fake.transaction('collection', charge.referenceId)!;
    expect(final).toEqual({ status: 'succeeded', financialTransactionId: String(kept.id), amount: 15_005, currency: 'GHS' });
    const sent = world.fake.requests.find((r) => r.method === 'POST' && (r.body as { tx_ref?: string })?.tx_ref === charge.referenceId)!;
    expect(sent.path).toBe('/v3/charges?type=mobile_money_ghana');
    expect(sent.body).toEqual({ tx_ref: charge.referenceId, amount: 150.05, currency: 'GHS', narration: 'Order 42', phone_number: '233241235678', network: 'MTN', meta: { external_id: charge.externalId } });
    const hooks = await waitFor('the webhook', () => webhooksOf(world, charge.referenceId).length === 1 && webhooksOf(world, charge.referenceId));
    expect(hooks[0].verified).toMatchObject({ product: 'collection', claimed: { status: 'succeeded' } });
  });

  test('the same tx_ref again is a duplicate, and changes nothing', async () => {
    const charge = chargeRequest();
    await world.rail.submit('collection', charge);
    // The fake completes a 'success' charge on its own timer, which may fire between the two reads
    // on a busy machine (it did in a test:quick, 2026-12-01): what the duplicate must not change is the rest.
    const unchanging = () => {
      const { status: _status, completedAt: _completedAt, ...rest } = world.fake.transaction('collection', charge.referenceId)!;
      return rest;
    };
    const before = unchanging();
    expect(await world.rail.submit('collection', { ...charge, amount: 1 })).toEqual({ kind: 'duplicate' });
    expect(unchanging()).toEqual(before);
    expect(before).toMatchObject({ amount: charge.amount });
  });

  test('a reference the aggregator never received is unknown, for each resource', async () => {
    for (const resource of ['collection', 'disbursement', 'refund'] as const) {
      expect(await world.rail.status(resource, randomUUID())).toEqual({ status: 'unknown' });
    }
  });

  test('the charge type follows the currency: UGX mobile_money_uganda (0 decimals), KES mpesa, XOF franco with its country; a Telecel number in Ghana names VODAFONE', async () => {
    const cases = [
      { overrides: { currency: 'UGX', amount: 5_000, party: { partyIdType: 'MSISDN' as const, partyId: '256772125678' } }, type: 'mobile_money_uganda', fields: { amount: 5000, phone_number: '256772125678' } },
      { overrides: { currency: 'KES', amount: 1_050, party: { partyIdType: 'MSISDN' as const, partyId: '254712345678' } }, type: 'mpesa', fields: { amount: 10.5 } },
      { overrides: { currency: 'XOF', amount: 2_500, party: { partyIdType: 'MSISDN' as const, partyId: '221771235678' } }, type: 'mobile_money_franco', fields: { country: 'SN', amount: 2500 } },
      { overrides: { party: { partyIdType: 'MSISDN' as const, partyId: '233201235678' } }, type: 'mobile_money_ghana', fields: { network: 'VODAFONE' } },
    ];
    for (const { overrides, type, fields } of cases) {
      const charge = chargeRequest('5678', overrides);
      expect(await world.rail.submit('collection', charge)).toEqual({ kind: 'accepted' });
      const sent = world.fake.requests.find((r) => (r.body as { tx_ref?: string })?.tx_ref === charge.referenceId)!;
      expect(sent.path).toBe(`/v3/charges?type=${type}`);
      expect(sent.body).toMatchObject(fields);
      expect(await finalStatus(world.rail, 'collection', charge.referenceId)).toMatchObject({ status: 'succeeded', amount: charge.amount, currency: charge.currency });
    }
  });

  test('a transfer to a bank account: POST /v3/transfers with our reference; status by reference; NEW/PENDING read as pending', async () => {
    const transfer = transferRequest();
    expect(await world.rail.submit('disbursement', transfer)).toEqual({ kind: 'accepted' });
    expect(world.fake.requests.find((r) => (r.body as { reference?: string })?.reference === transfer.referenceId)?.body).toEqual({
      account_bank: 'GCB',
      account_number: '3004005678',
      amount: 2500,
      currency: 'GHS',
      narration: 'Settlement of 2026-12-16',
      reference: transfer.referenceId,
      meta: { external_id: transfer.externalId },
    });
    expect(await world.rail.status('disbursement', transfer.referenceId)).toEqual({ status: 'pending' });
    expect(await finalStatus(world.rail, 'disbursement', transfer.referenceId)).toMatchObject({ status: 'succeeded', amount: 250_000, currency: 'GHS' });
    expect(await world.rail.submit('disbursement', transfer)).toEqual({ kind: 'duplicate' });
    // A transfer's reference is not a charge's nor a refund's.
    expect(await world.rail.status('collection', transfer.referenceId)).toEqual({ status: 'unknown' });
    expect(await world.rail.status('refund', transfer.referenceId)).toEqual({ status: 'unknown' });
  });

  test('a transfer to a wallet: the network as account_bank (MTN, AIRTELTIGO in Ghana; MPS for KES), the number as account_number', async () => {
    const cases: Array<[string, string, string, string]> = [
      ['233241235678', 'GHS', 'MTN', '233241235678'],
      ['233271235678', 'GHS', 'AIRTELTIGO', '233271235678'],
      ['254712345678', 'KES', 'MPS', '254712345678'],
    ];
    for (const [partyId, currency, bank, account] of cases) {
      const transfer = transferRequest('5678', { currency, party: { partyIdType: 'MSISDN', partyId } });
      expect(await world.rail.submit('disbursement', transfer)).toEqual({ kind: 'accepted' });
      expect(world.fake.transaction('disbursement', transfer.referenceId)).toMatchObject({ partyKind: 'MSISDN', accountBank: bank, partyId: account });
      expect(await finalStatus(world.rail, 'disbursement', transfer.referenceId)).toMatchObject({ status: 'succeeded' });
    }
  });

  test('refusals: a payer or payee the aggregator does not know is refused at once (invalid_recipient), nothing kept', async () => {
    const charge = chargeRequest('0002');
    expect(await world.rail.submit('collection', charge)).toEqual({ kind: 'refused', reason: 'INVALID_PHONE', failureClass: 'invalid_recipient' });
    expect(world.fake.transaction('collection', charge.referenceId)).toBeUndefined();
    expect(await world.rail.status('collection', charge.referenceId)).toEqual({ status: 'unknown' });
    const transfer = transferRequest('0002');
    expect(await world.rail.submit('disbursement', transfer)).toEqual({ kind: 'refused', reason: 'INVALID_ACCOUNT', failureClass: 'invalid_recipient' });
  });

  test('a card charge in clear is no card charge (the card is the encrypted `client`: aggregator-card.test.ts); an unknown type is refused', async () => {
    const card = await rawCall(world, 'POST', '/v3/charges?type=card', { tx_ref: randomUUID(), amount: 10, currency: 'GHS' });
    expect(card).toEqual({ status: 400, json: { status: 'error', code: 'INVALID_REQUEST', message: 'client is required: the card payload, encrypted', data: null } });
    expect((await rawCall(world, 'POST', '/v3/charges?type=voucher', { tx_ref: randomUUID() })).json).toMatchObject({ code: 'UNSUPPORTED_PAYMENT_TYPE' });
  });

  test('requests we cannot send: RailRequestInvalid before any request', async () => {
    const sent = world.fake.requests.length;
    const cases: Array<[Parameters<AggregatorRail['submit']>[0], Parameters<AggregatorRail['submit']>[1]]> = [
      ['collection', chargeRequest('5678', { referenceId: 'not-a-uuid' })],
      ['collection', chargeRequest('5678', { currency: 'NGN' })], // no mobile-money charge in NGN
      ['collection', chargeRequest('5678', { currency: 'XAF' })], // no exponent known for XAF
      ['collection', chargeRequest('5678', { party: { partyIdType: 'MSISDN', partyId: '233991235678' } })], // no Ghana network of that prefix
      ['collection', chargeRequest('5678', { amount: 0 })],
      ['collection', chargeRequest('5678', { referenceIdToRefund: randomUUID() })],
      ['disbursement', transferRequest('5678', { party: { partyIdType: 'BANK_ACCOUNT', partyId: 'GCB' } })],
      ['disbursement', transferRequest('5678', { currency: 'ZAR', party: { partyIdType: 'MSISDN', partyId: '27821235678' } })],
      ['refund', transferRequest()], // no referenceIdToRefund
    ];
    for (const [resource, request] of cases) await expect(world.rail.submit(resource, request)).rejects.toBeInstanceOf(RailRequestInvalid);
    await expect(world.rail.status('collection', 'nope')).rejects.toBeInstanceOf(RailRequestInvalid);
    expect(world.fake.requests.length).toBe(sent);
  });

  test('the secret key is masked in what the fake records', () => {
    const headers = world.fake.requests.map((r) => r.headers.authorization).filter(Boolean);
    expect(headers.length).toBeGreaterThan(0);
    expect(new Set(headers)).toEqual(new Set(['Bearer [redacted]']));
    expect(JSON.stringify(world.fake.requests)).not.toContain(world.fake.secretKey);
  });
});

describe('AggregatorRail when the aggregator does not answer as it should', () => {
  test('a wrong secret key: RailMisconfigured (not retryable), for submit and status', async () => {
    const world = await startAggregatorWorld();
    const rail = new AggregatorRail({ ...world.config, secretKey: 'FLWSECK_TEST-wrong-wrong-wrong-X' });
    try {
      await expect(rail.submit('collection', chargeRequest())).rejects.toBeInstanceOf(RailMisconfigured);
      await expect(rail.status('disbursement', randomUUID())).rejects.toMatchObject({ name: 'RailMisconfigured', retryable: false, status: 401 });
      const error = await rail.status('collection', randomUUID()).catch((e: Error) => e);
      expect(String((error as Error).message)).not.toContain('wrong-wrong');
    } finally {
      await rail.close();
      await world.close();
    }
  });

  test('nobody listening: RailUnavailable (retry the same request)', async () => {
    const world = await startAggregatorWorld();
    const config = world.config;
    await world.close();
    const rail = new AggregatorRail({ ...config, timeoutMs: 500 });
    try {
      await expect(rail.submit('collection', chargeRequest())).rejects.toBeInstanceOf(RailUnavailable);
      await expect(rail.status('collection', randomUUID())).rejects.toBeInstanceOf(RailUnavailable);
    } finally {
      await rail.close();
    }
  });

  test("a proxy's 404 page, a 502, a 200 that is not the aggregator's, a list that ignored our filter: RailUnavailable, never unknown; a 404 naming TRANSACTION_NOT_FOUND or Flutterwave's words (also as a 400): unknown", async () => {
    let next: { status: number; body: string } = { status: 404, body: '<html>Not Found</html>' };
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(next.status, { 'content-type': 'application/json' }).end(next.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const rail = new AggregatorRail({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, secretKey: 'k'.repeat(20), webhookHash: 'h'.repeat(32), timeoutMs: 1_000 });
    const ref = randomUUID();
    try {
      const noAnswers: Array<[number, unknown]> = [
        [404, '<html>Not Found</html>'],
        [404, { status: 'error', message: 'Route not found', data: null }],
        [502, { status: 'error', message: 'Bad gateway' }],
        [200, { ok: true }],
        [200, { status: 'success', message: 'fetched', data: { id: 1, tx_ref: randomUUID(), status: 'successful' } }],
      ];
      for (const [status, body] of noAnswers) {
        next = { status, body: typeof body === 'string' ? body : JSON.stringify(body) };
        await expect(rail.status('collection', ref)).rejects.toBeInstanceOf(RailUnavailable);
      }
      next = { status: 200, body: JSON.stringify({ status: 'success', message: 'Transfers fetched', data: [{ id: 9, reference: randomUUID(), status: 'SUCCESSFUL' }] }) };
      await expect(rail.status('disbursement', ref)).rejects.toThrow(/not filtered by reference/);
      for (const [status, body] of [
        [404, { status: 'error', code: 'TRANSACTION_NOT_FOUND', message: 'No transaction was found for this id', data: null }],
        [400, { status: 'error', message: 'No transaction was found for this id', data: null }],
      ] as const) {
        next = { status, body: JSON.stringify(body) };
        expect(await rail.status('collection', ref)).toEqual({ status: 'unknown' });
      }
      // A success whose status is not one we know: no answer.
      next = { status: 200, body: JSON.stringify({ status: 'success', message: 'fetched', data: { id: 1, tx_ref: ref, status: 'weird' } }) };
      await expect(rail.status('collection', ref)).rejects.toBeInstanceOf(RailUnavailable);
      // A submission answered 429, or 400 naming an error the table retries (the account's float): RailUnavailable.
      for (const body of [{ status: 'error', message: 'Too many requests' }, { status: 'error', message: 'DISBURSE FAILED: Insufficient funds in customer wallet', data: null }]) {
        next = { status: body.message === 'Too many requests' ? 429 : 400, body: JSON.stringify(body) };
        await expect(rail.submit('disbursement', transferRequest())).rejects.toBeInstanceOf(RailUnavailable);
      }
      // An IP not whitelisted (403): our configuration.
      next = { status: 403, body: JSON.stringify({ status: 'error', message: 'Please whitelist your IP', data: null }) };
      await expect(rail.submit('disbursement', transferRequest())).rejects.toBeInstanceOf(RailMisconfigured);
    } finally {
      await rail.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
