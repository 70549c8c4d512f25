import { AggregatorRail } from '../../src/rail/aggregator/adapter';
import { RailUnavailable, type RailRequest, type RailResource } from '../../src/rail/partner-rail';
import { parseStatementCsv, parseStatementJson } from '../../src/rail/momo-statement';
import { chargeRequest, finalStatus, rawCall, sleep, startAggregatorWorld, transferRequest, waitFor, webhooksOf, type AggregatorWorld } from './aggregator-support';

/**
 * Every behaviour of the fake aggregator's table (the MoMo fake's suffixes), through the real
 * adapter, for charges (a mobile-money payer) and transfers (a bank-account payee), with the
 * webhooks each sends checked by verifyAggregatorWebhook.
 */
const LATE_CALLBACK_MS = 800;
const LATE_SUCCESS_MS = 900;
const SLOW_MS = 1_000;

const requestFor = (resource: 'collection' | 'disbursement', suffix: string, overrides: Partial<RailRequest> = {}): RailRequest =>
  resource === 'collection' ? chargeRequest(suffix, overrides) : transferRequest(suffix, overrides);

describe('the fake aggregator, behaviour by behaviour', () => {
  let world: AggregatorWorld;
  beforeAll(async () => {
    world = await startAggregatorWorld({ approveAfterMs: 50, lateCallbackMs: LATE_CALLBACK_MS, lateSuccessMs: LATE_SUCCESS_MS, latePayoutSuccessMs: LATE_SUCCESS_MS, slowMs: SLOW_MS });
  });
  afterAll(() => world?.close());

  const submitted = async (resource: RailResource, request: RailRequest) => {
    expect(await world.rail.submit(resource, request)).toEqual({ kind: 'accepted' });
    return request;
  };
  const claims = (ref: string) => webhooksOf(world, ref).map((w) => ('claimed' in w.verified ? w.verified.claimed.status : w.verified.refused));

  describe.each(['collection', 'disbursement'] as const)('%s', (resource) => {
    test('anything else: success, one webhook', async () => {
      const r = await submitted(resource, requestFor(resource, '5678'));
      expect(await finalStatus(world.rail, resource, r.referenceId)).toMatchObject({ status: 'succeeded', amount: r.amount });
      await waitFor('one webhook', () => claims(r.referenceId).length === 1);
      expect(claims(r.referenceId)).toEqual(['succeeded']);
    });

    test('0001 refused later (INSUFFICIENT_FUNDS, insufficient_funds) and 0003 (RECIPIENT_NOT_ALLOWED, invalid_recipient), one webhook each', async () => {
      const r1 = await submitted(resource, requestFor(resource, '0001'));
      const r3 = await submitted(resource, requestFor(resource, '0003'));
      expect(await finalStatus(world.rail, resource, r1.referenceId)).toMatchObject({ status: 'failed', reason: 'INSUFFICIENT_FUNDS', failureClass: 'insufficient_funds' });
      expect(await finalStatus(world.rail, resource, r3.referenceId)).toMatchObject({ status: 'failed', reason: 'RECIPIENT_NOT_ALLOWED', failureClass: 'invalid_recipient' });
      await waitFor('the webhooks', () => claims(r1.referenceId).length === 1 && claims(r3.referenceId).length === 1);
      expect(claims(r1.referenceId)).toEqual(['failed']);
    });

    test('0002 refused at once (invalid_recipient), nothing kept', async () => {
      const r = requestFor(resource, '0002');
      expect(await world.rail.submit(resource, r)).toMatchObject({ kind: 'refused', failureClass: 'invalid_recipient' });
      expect(world.fake.transaction(resource, r.referenceId)).toBeUndefined();
    });

    test('0004 pending forever, no webhook; 0014 too, and its copy is refused with a 400 the adapter checks: a duplicate', async () => {
      const r4 = await submitted(resource, requestFor(resource, '0004'));
      const r14 = await submitted(resource, requestFor(resource, '0014'));
      await sleep(200);
      expect(await world.rail.status(resource, r4.referenceId)).toEqual({ status: 'pending' });
      expect(await world.rail.submit(resource, r14)).toEqual({ kind: 'duplicate' });
      expect(world.warnings.some((w) => /refused a submission of a reference it keeps/.test(w.message))).toBe(true);
      expect(await world.rail.status(resource, r14.referenceId)).toEqual({ status: 'pending' });
      expect(claims(r4.referenceId)).toEqual([]);
      expect(claims(r14.referenceId)).toEqual([]);
    });

    test('0005 the webhook twice; 0008 none; 0009 late (at lateCallbackMs)', async () => {
      const r5 = await submitted(resource, requestFor(resource, '0005'));
      const r8 = await submitted(resource, requestFor(resource, '0008'));
      const r9 = await submitted(resource, requestFor(resource, '0009'));
      const start = Date.now();
      await waitFor('two webhooks', () => claims(r5.referenceId).length === 2);
      expect(claims(r5.referenceId)).toEqual(['succeeded', 'succeeded']);
      expect(await world.rail.status(resource, r9.referenceId)).toMatchObject({ status: 'succeeded' });
      expect(claims(r9.referenceId)).toEqual([]);
      await waitFor('the late webhook', () => claims(r9.referenceId).length === 1);
      expect(Date.now() - start).toBeGreaterThanOrEqual(LATE_CALLBACK_MS - 150);
      expect(await world.rail.status(resource, r8.referenceId)).toMatchObject({ status: 'succeeded' });
      expect(claims(r8.referenceId)).toEqual([]);
    });

    test('0006 a 500 on the first submission (retry: RailUnavailable, nothing kept), then success', async () => {
      const r = requestFor(resource, '0006');
      await expect(world.rail.submit(resource, r)).rejects.toBeInstanceOf(RailUnavailable);
      expect(await world.rail.status(resource, r.referenceId)).toEqual({ status: 'unknown' });
      expect(await world.rail.submit(resource, r)).toEqual({ kind: 'accepted' });
      expect(await finalStatus(world.rail, resource, r.referenceId)).toMatchObject({ status: 'succeeded' });
    });

    test('0007 slow: kept at once, the answer after our timeout (RailUnavailable); the retry is a duplicate; then success', async () => {
      const r = requestFor(resource, '0007');
      const impatient = new AggregatorRail(world.fake.config({ timeoutMs: 250 }));
      await expect(impatient.submit(resource, r)).rejects.toThrow(/timeout/);
      await impatient.close();
      expect(world.fake.transaction(resource, r.referenceId)).toBeDefined();
      expect(await world.rail.submit(resource, r)).toEqual({ kind: 'duplicate' });
      expect(await finalStatus(world.rail, resource, r.referenceId)).toMatchObject({ status: 'succeeded' });
    });

    test('0012 succeeds only late (lateSuccessMs / latePayoutSuccessMs), with one webhook', async () => {
      const r = await submitted(resource, requestFor(resource, '0012'));
      await sleep(200);
      expect(await world.rail.status(resource, r.referenceId)).toEqual({ status: 'pending' });
      expect(await finalStatus(world.rail, resource, r.referenceId)).toMatchObject({ status: 'succeeded' });
      await waitFor('the webhook', () => claims(r.referenceId).length === 1);
    });

    test('0013 a copy refused with 400 TRANSACTION_IN_PROGRESS: the adapter asks the status and answers duplicate; the first succeeds', async () => {
      const r = await submitted(resource, requestFor(resource, '0013'));
      const copy = await rawCall(world, 'POST', resource === 'collection' ? '/v3/charges?type=mobile_money_ghana' : '/v3/transfers', resource === 'collection' ? { tx_ref: r.referenceId } : { reference: r.referenceId });
      expect(copy).toMatchObject({ status: 400, json: { code: 'TRANSACTION_IN_PROGRESS' } });
      expect(await world.rail.submit(resource, r)).toEqual({ kind: 'duplicate' });
      expect(await finalStatus(world.rail, resource, r.referenceId)).toMatchObject({ status: 'succeeded' });
    });

    test('0015 succeeds for one minor unit less than asked (status and webhook)', async () => {
      const r = await submitted(resource, requestFor(resource, '0015', { amount: 2_000 }));
      expect(await finalStatus(world.rail, resource, r.referenceId)).toMatchObject({ status: 'succeeded', amount: 1_999 });
      await waitFor('the webhook', () => webhooksOf(world, r.referenceId).length === 1);
      expect(webhooksOf(world, r.referenceId)[0].verified).toMatchObject({ claimed: { amount: 1_999 } });
    });
  });

  test("the day's statements (JSON, CSV, and in process): 0010 listed twice, 0011 one minor unit more, refunds on the disbursement statement, refusals not listed", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const twice = await submitted('collection', chargeRequest('0010'));
    const plusOne = await submitted('collection', chargeRequest('0011', { amount: 1_005 }));
    const pending = await submitted('collection', chargeRequest('0004'));
    const failed = await submitted('collection', chargeRequest('0001'));
    const refused = chargeRequest('0002');
    await world.rail.submit('collection', refused);
    const payout = await submitted('disbursement', transferRequest('5678'));
    await finalStatus(world.rail, 'collection', twice.referenceId);
    await finalStatus(world.rail, 'collection', plusOne.referenceId);
    await finalStatus(world.rail, 'collection', failed.referenceId);
    await finalStatus(world.rail, 'disbursement', payout.referenceId);
    const refund = { ...transferRequest(), referenceIdToRefund: twice.referenceId, party: twice.party, amount: 100 };
    await submitted('refund', refund);

    const collection = world.fake.statement('collection', today);
    const of = (lines: typeof collection.lines, ref: string) => lines.filter((l) => l.referenceId === ref);
    expect(of(collection.lines, twice.referenceId)).toHaveLength(2);
    expect(of(collection.lines, twice.referenceId)[0]).toMatchObject({ status: 'SUCCESSFUL', amount: '150.05', currency: 'GHS', externalId: twice.externalId, party: '****0010', financialTransactionId: String(world.fake.transaction('collection', twice.referenceId)!.id) });
    expect(of(collection.lines, plusOne.referenceId)).toEqual([expect.objectContaining({ amount: '10.06' })]);
    expect(of(collection.lines, pending.referenceId)).toEqual([expect.objectContaining({ status: 'PENDING', completedAt: null, financialTransactionId: null })]);
    expect(of(collection.lines, failed.referenceId)).toEqual([expect.objectContaining({ status: 'FAILED', reason: 'INSUFFICIENT_FUNDS' })]);
    expect(of(collection.lines, refused.referenceId)).toEqual([]);
    const disbursement = world.fake.statement('disbursement', today);
    expect(of(disbursement.lines, payout.referenceId)).toEqual([expect.objectContaining({ amount: '2500.00', party: '****5678' })]);
    expect(of(disbursement.lines, refund.referenceId)).toEqual([expect.objectContaining({ amount: '1.00', externalId: refund.externalId, party: '****0010' })]);

    const json = await rawCall(world, 'GET', `/v3/statements/collection?date=${today}`);
    expect(parseStatementJson(json.json)).toEqual(world.fake.statement('collection', today));
    const csv = await fetch(`${world.fake.url}/v3/statements/disbursement.csv?date=${today}`, { headers: { authorization: `Bearer ${world.fake.secretKey}` } });
    expect(csv.headers.get('content-disposition')).toContain(`statement-disbursement-${today}.csv`);
    expect(parseStatementCsv(await csv.text())).toEqual(world.fake.statement('disbursement', today));
    expect((await fetch(`${world.fake.url}/v3/statements/collection?date=${today}`)).status).toBe(401);
    expect((await rawCall(world, 'GET', '/v3/statements/collection?date=someday')).status).toBe(400);
  });
});
