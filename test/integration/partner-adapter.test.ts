/**
 * The live rail's adapter (src/rail/momo-adapter.ts) against the fake partner
 * (src/rail/fake-partner/), both real, over real HTTP on 127.0.0.1; a small local server takes the
 * partner's callbacks the way our callback route would, and checks them with verifyCallback. One
 * test per behaviour of the fake, for charges (collection) and for payouts (disbursement).
 * No database and no Temporal are used here.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { startFakePartner, type FakePartner } from '../../src/rail/fake-partner';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import { callbackAnswer, callbackToken, verifyCallback } from '../../src/rail/momo-callback';
import { RailUnavailable, type RailProduct, type RailRequest, type RailStatus } from '../../src/rail/partner-rail';
import type { PartnerConfig } from '../../src/rail/partner-config';
import { RailMisconfigured } from '../../src/rail/rail-errors';
import { freePort } from '../../src/support/free-port';

const APPROVE_MS = 200;
// Our timeout is well above a loaded 2-core machine's answer time (a 500 ms one timed out on a plain status during a full run), the slow answer well above it.
const SLOW_MS = 5_000;
const TIMEOUT_MS = 2_500;
const LATE_MS = 5 * APPROVE_MS;
/** How long "no callback" is watched for: well past the moment a callback would have come. */
const QUIET_MS = 4 * APPROVE_MS;
const SECRET = randomBytes(32).toString('base64url');

interface Received {
  at: number;
  method: string;
  product: string;
  referenceId: string;
  token: string | null;
  contentType: string | undefined;
  body: string;
}

let fake: FakePartner;
let rail: MomoPartnerRail;
let config: PartnerConfig;
let receiver: http.Server;
const received: Received[] = [];
const fakeLog: Array<{ message: string; fields?: Record<string, unknown> }> = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      const match = /^\/partner\/momo\/callbacks\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      received.push({
        at: Date.now(),
        method: req.method ?? '',
        product: match?.[1] ?? '',
        referenceId: decodeURIComponent(match?.[2] ?? ''),
        token: url.searchParams.get('token'),
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = callbackAnswer('accepted');
      res.writeHead(answer.status, { 'content-length': '0' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const callbackBaseUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  fake = await startFakePartner({ approveAfterMs: APPROVE_MS, slowMs: SLOW_MS, log: (message, fields) => void fakeLog.push({ message, fields }) });
  config = fake.partnerConfig({ callbackBaseUrl, callbackSecret: SECRET, timeoutMs: TIMEOUT_MS });
  rail = new MomoPartnerRail(config);
});

afterAll(async () => {
  await rail?.close();
  await fake?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Polls the status until it is no longer pending (the workflow's timer, fast). */
function finalStatus(product: RailProduct, referenceId: string, timeoutMs = 5_000): Promise<RailStatus> {
  return waitFor(`a final status of ${referenceId}`, async () => {
    const s = await rail.status(product, referenceId);
    return s.status === 'pending' ? undefined : s;
  }, timeoutMs);
}

function callbacksOf(referenceId: string): Received[] {
  return received.filter((r) => r.referenceId === referenceId);
}

/** A party whose id ends in `suffix` (the fake's behaviour table); `5678` is plain success. */
function request(suffix = '5678', overrides: Partial<RailRequest> = {}): RailRequest {
  return {
    referenceId: randomUUID(),
    amount: 15_000,
    currency: 'GHS',
    externalId: `txn_${randomBytes(6).toString('hex')}`,
    party: { partyIdType: 'MSISDN', partyId: `23324123${suffix}` },
    message: 'Order 42',
    ...overrides,
  };
}

describe.each<RailProduct>(['collection', 'disbursement'])('%s', (product) => {
  const partyField = product === 'collection' ? 'payer' : 'payee';
  const path = product === 'collection' ? '/collection/v1_0/requesttopay' : '/disbursement/v1_0/transfer';

  test('success: accepted, pending, then SUCCESSFUL by status; one callback, verified', async () => {
    const req = request();
    const accepted = Date.now();
    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    const first = await rail.status(product, req.referenceId);
    // PENDING until approveAfterMs (on a loaded machine the first status may come later than that).
    if (Date.now() - accepted < APPROVE_MS) expect(first).toEqual({ status: 'pending' });

    const sent = fake.requests.filter((r) => r.method === 'POST' && r.path === path).at(-1)!;
    expect(sent.headers).toMatchObject({
      authorization: 'Bearer [redacted]',
      'ocp-apim-subscription-key': '[redacted]',
      'x-reference-id': req.referenceId,
      'x-target-environment': 'sandbox',
      'content-type': 'application/json',
      'x-callback-url': `${config.callbackBaseUrl}/partner/momo/callbacks/${product}/${req.referenceId}?token=[redacted]`,
    });
    expect(sent.body).toEqual({
      amount: '150.00',
      currency: 'GHS',
      externalId: req.externalId,
      [partyField]: { partyIdType: 'MSISDN', partyId: req.party.partyId },
      payerMessage: 'Order 42',
      payeeNote: 'Order 42',
    });

    const final = await finalStatus(product, req.referenceId);
    expect(final).toEqual({ status: 'succeeded', financialTransactionId: expect.stringMatching(/^[0-9]+$/), amount: 15_000, currency: 'GHS' });
    const [callback] = await waitFor('the callback', () => callbacksOf(req.referenceId).length >= 1 && callbacksOf(req.referenceId));
    expect(callback).toMatchObject({ method: 'PUT', product, contentType: 'application/json' });
    expect(verifyCallback(config, callback!.product, callback!.referenceId, callback!.token, callback!.body)).toEqual({ product, referenceId: req.referenceId, claimed: final });
    await sleep(2 * APPROVE_MS);
    expect(callbacksOf(req.referenceId)).toHaveLength(1);
  });

  test('refusal after acceptance (0001): FAILED NOT_ENOUGH_FUNDS is insufficient_funds, by status and callback', async () => {
    const req = request('0001');
    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    const expected = { status: 'failed', reason: 'NOT_ENOUGH_FUNDS', failureClass: 'insufficient_funds', amount: 15_000, currency: 'GHS' };
    expect(await finalStatus(product, req.referenceId)).toEqual(expected);
    const [callback] = await waitFor('the callback', () => callbacksOf(req.referenceId).length >= 1 && callbacksOf(req.referenceId));
    expect(verifyCallback(config, product, req.referenceId, callback!.token, callback!.body)).toEqual({ product, referenceId: req.referenceId, claimed: expected });
  });

  test(`refusal at once (0002): 404 ${product === 'collection' ? 'PAYER_NOT_FOUND' : 'PAYEE_NOT_FOUND'} is refused, invalid_recipient; nothing kept`, async () => {
    const req = request('0002');
    const reason = product === 'collection' ? 'PAYER_NOT_FOUND' : 'PAYEE_NOT_FOUND';
    expect(await rail.submit(product, req)).toEqual({ kind: 'refused', reason, failureClass: 'invalid_recipient' });
    expect(fake.transaction(product, req.referenceId)).toBeUndefined();
    expect(await rail.status(product, req.referenceId)).toEqual({ status: 'unknown' });
  });

  test('PAYEE_NOT_ALLOWED_TO_RECEIVE (0003) is invalid_recipient', async () => {
    const req = request('0003');
    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    const expected = { status: 'failed', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE', failureClass: 'invalid_recipient', amount: 15_000, currency: 'GHS' };
    expect(await finalStatus(product, req.referenceId)).toEqual(expected);
    const [callback] = await waitFor('the callback', () => callbacksOf(req.referenceId).length >= 1 && callbacksOf(req.referenceId));
    expect(verifyCallback(config, product, req.referenceId, callback!.token, callback!.body)).toMatchObject({ claimed: expected });
  });

  test('timeout without a callback (0004): pending whenever asked, no callback', async () => {
    const req = request('0004');
    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    const until = Date.now() + QUIET_MS;
    while (Date.now() < until) {
      expect(await rail.status(product, req.referenceId)).toEqual({ status: 'pending' });
      await sleep(APPROVE_MS / 2);
    }
    expect(callbacksOf(req.referenceId)).toEqual([]);
    expect(fake.callbacksSent.filter((c) => c.referenceId === req.referenceId)).toEqual([]);
  });

  test('duplicate callback (0005): two callbacks with the same body, both genuine', async () => {
    const req = request('0005');
    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    const callbacks = await waitFor('two callbacks', () => callbacksOf(req.referenceId).length >= 2 && callbacksOf(req.referenceId));
    await sleep(2 * APPROVE_MS);
    expect(callbacksOf(req.referenceId)).toHaveLength(2);
    expect(callbacks[1]!.body).toBe(callbacks[0]!.body);
    expect(callbacks[1]!.token).toBe(callbacks[0]!.token);
    const final = await rail.status(product, req.referenceId);
    expect(final.status).toBe('succeeded');
    for (const c of callbacks) expect(verifyCallback(config, product, req.referenceId, c.token, c.body)).toEqual({ product, referenceId: req.referenceId, claimed: final });
  });

  test('duplicate reference: a second submission is a duplicate and changes nothing at the partner', async () => {
    // A party whose transaction stays PENDING (0004): nothing else can change it meanwhile.
    const held = request('0004');
    expect(await rail.submit(product, held)).toEqual({ kind: 'accepted' });
    const before = fake.transaction(product, held.referenceId);
    expect(before?.state.status).toBe('PENDING');
    // The same reference with another amount and party: still the first request.
    const changed = { ...held, amount: 99_900, externalId: 'txn_other', party: { partyIdType: 'MSISDN' as const, partyId: '233241235678' } };
    expect(await rail.submit(product, changed)).toEqual({ kind: 'duplicate' });
    expect(await rail.submit(product, held)).toEqual({ kind: 'duplicate' });
    expect(fake.transaction(product, held.referenceId)).toEqual(before);

    // And one that goes on to succeed: one transaction, as first sent, one callback.
    const req = request();
    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    expect(await rail.submit(product, { ...req, amount: 99_900, party: { partyIdType: 'MSISDN', partyId: '233241230001' } })).toEqual({ kind: 'duplicate' });
    expect(await finalStatus(product, req.referenceId)).toMatchObject({ status: 'succeeded' });
    expect(fake.transaction(product, req.referenceId)?.state).toMatchObject({ amount: '150.00', externalId: req.externalId, [partyField]: req.party });
    await waitFor('the callback', () => callbacksOf(req.referenceId).length >= 1);
    await sleep(2 * APPROVE_MS);
    expect(callbacksOf(req.referenceId)).toHaveLength(1);
    expect(callbacksOf(held.referenceId)).toEqual([]);
  });

  test('a 500 (0006): RailUnavailable, nothing kept; the retry with the same reference succeeds', async () => {
    const req = request('0006');
    const error = await rail.submit(product, req).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RailUnavailable);
    expect(error).toMatchObject({ status: 500, retryable: true });
    expect(fake.transaction(product, req.referenceId)).toBeUndefined();
    expect(await rail.status(product, req.referenceId)).toEqual({ status: 'unknown' });

    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(product, req.referenceId)).toMatchObject({ status: 'succeeded' });
    await waitFor('the callback', () => callbacksOf(req.referenceId).length >= 1);
  });

  test('slow answer (0007): RailUnavailable at our timeout; the retry is a duplicate; the status succeeds', async () => {
    const req = request('0007');
    const started = Date.now();
    const error = await rail.submit(product, req).catch((e: unknown) => e);
    const waited = Date.now() - started;
    expect(error).toBeInstanceOf(RailUnavailable);
    expect((error as Error).message).toMatch(/timeout/);
    expect(waited).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(waited).toBeLessThan(SLOW_MS);

    expect(await rail.submit(product, req)).toEqual({ kind: 'duplicate' });
    expect(await finalStatus(product, req.referenceId)).toMatchObject({ status: 'succeeded' });
    await waitFor('the callback', () => callbacksOf(req.referenceId).length >= 1);
  });

  test('success found only by polling (0008): SUCCESSFUL, never a callback', async () => {
    const req = request('0008');
    const accepted = Date.now();
    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(product, req.referenceId)).toMatchObject({ status: 'succeeded' });
    await sleep(Math.max(0, accepted + QUIET_MS - Date.now()));
    expect(callbacksOf(req.referenceId)).toEqual([]);
  });

  test('late callback (0009): SUCCESSFUL by status first, the callback long after', async () => {
    const req = request('0009');
    const accepted = Date.now();
    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    const final = await finalStatus(product, req.referenceId);
    expect(final.status).toBe('succeeded');
    expect(callbacksOf(req.referenceId)).toEqual([]);
    const [callback] = await waitFor('the late callback', () => callbacksOf(req.referenceId).length >= 1 && callbacksOf(req.referenceId));
    expect(callback!.at - accepted).toBeGreaterThanOrEqual(LATE_MS - 50);
    expect(verifyCallback(config, product, req.referenceId, callback!.token, callback!.body)).toEqual({ product, referenceId: req.referenceId, claimed: final });
  });

  test('a forged callback is refused: a wrong, missing or borrowed token', async () => {
    const req = request();
    expect(await rail.submit(product, req)).toEqual({ kind: 'accepted' });
    const [genuine] = await waitFor('the callback', () => callbacksOf(req.referenceId).length >= 1 && callbacksOf(req.referenceId));
    const { token, body } = genuine!;
    const other: RailProduct = product === 'collection' ? 'disbursement' : 'collection';
    const forged = { refused: 'forged' };
    // A token made with another secret, a damaged one, none, one for another reference or product.
    expect(verifyCallback(config, product, req.referenceId, callbackToken('not-our-secret', product, req.referenceId), body)).toEqual(forged);
    expect(verifyCallback(config, product, req.referenceId, `${token!.slice(0, -1)}${token!.endsWith('A') ? 'B' : 'A'}`, body)).toEqual(forged);
    expect(verifyCallback(config, product, req.referenceId, null, body)).toEqual(forged);
    expect(verifyCallback(config, product, req.referenceId, '', body)).toEqual(forged);
    expect(verifyCallback(config, product, randomUUID(), token, body)).toEqual(forged);
    expect(verifyCallback(config, other, req.referenceId, token, body)).toEqual(forged);
    expect(verifyCallback(config, 'refunds', req.referenceId, token, body)).toEqual(forged);
    // The genuine one still passes, and a forged body with the genuine token is only a claim.
    expect(verifyCallback(config, product, req.referenceId, token, body)).toMatchObject({ claimed: { status: 'succeeded' } });
  });

  test('a callback with a valid token and a malformed body is refused as malformed', async () => {
    const req = request();
    const token = callbackToken(SECRET, product, req.referenceId);
    for (const body of ['', 'not json', '[]', '{"status":"DONE"}', '{"financialTransactionId":"1"}', 'null']) {
      expect({ body, result: verifyCallback(config, product, req.referenceId, token, body) }).toEqual({ body, result: { refused: 'malformed' } });
    }
    expect(verifyCallback(config, product, req.referenceId, token, Buffer.from('{"status":"PENDING"}'))).toEqual({ product, referenceId: req.referenceId, claimed: { status: 'pending' } });
  });

  test('a reference the partner never saw is unknown', async () => {
    expect(await rail.status(product, randomUUID())).toEqual({ status: 'unknown' });
  });
});

describe('credentials and connection', () => {
  test('one token per product, kept across calls', async () => {
    const before = fake.requests.filter((r) => r.path.endsWith('/token/')).length;
    for (let i = 0; i < 3; i++) await rail.status('collection', randomUUID());
    expect(fake.requests.filter((r) => r.path.endsWith('/token/')).length).toBe(before);
    const tokenCall = fake.requests.find((r) => r.path === '/collection/token/')!;
    expect(tokenCall.headers).toMatchObject({ authorization: 'Basic [redacted]', 'ocp-apim-subscription-key': '[redacted]' });
  });

  test('a token the partner revoked is renewed once, and the call goes through', async () => {
    fake.revokeTokens();
    const before = fake.requests.filter((r) => r.path === '/disbursement/token/').length;
    const req = request();
    expect(await rail.submit('disbursement', req)).toEqual({ kind: 'accepted' });
    expect(fake.requests.filter((r) => r.path === '/disbursement/token/').length).toBe(before + 1);
    // The refused attempt and the retry, with the same reference: one transaction.
    expect(fake.requests.filter((r) => r.headers['x-reference-id'] === req.referenceId)).toHaveLength(2);
    expect(fake.transaction('disbursement', req.referenceId)?.state.status).toBe('PENDING');
  });

  test.each([
    ['a wrong API key', { apiKey: 'wrong' }],
    ['a wrong API user', { apiUser: randomUUID() }],
    ['a wrong subscription key', { subscriptionKey: 'wrong' }],
  ])('%s: RailMisconfigured (not retryable), nothing submitted', async (_, wrong) => {
    const bad = new MomoPartnerRail({ ...config, credentials: { collection: { ...config.credentials.collection, ...wrong }, disbursement: { ...config.credentials.disbursement, ...wrong } } });
    try {
      const req = request();
      const error = await bad.submit('collection', req).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RailMisconfigured);
      expect(error).toMatchObject({ retryable: false, status: 401 });
      expect((error as Error).message).toMatch(/PARTNER_API_USER, PARTNER_API_KEY and PARTNER_SUBSCRIPTION_KEY/);
      expect((error as Error).message).not.toContain(config.credentials.collection.apiKey);
      expect(fake.transaction('collection', req.referenceId)).toBeUndefined();
      await expect(bad.status('disbursement', req.referenceId)).rejects.toBeInstanceOf(RailMisconfigured);
    } finally {
      await bad.close();
    }
  });

  test('a wrong target environment: RailMisconfigured', async () => {
    const bad = new MomoPartnerRail({ ...config, targetEnvironment: 'mtnghana' });
    try {
      const req = request();
      await expect(bad.submit('collection', req)).rejects.toMatchObject({ name: 'RailMisconfigured', status: 403 });
      expect(fake.transaction('collection', req.referenceId)).toBeUndefined();
      await expect(bad.status('disbursement', randomUUID())).rejects.toMatchObject({ name: 'RailMisconfigured', status: 403 });
    } finally {
      await bad.close();
    }
  });

  test('a partner that is down: RailUnavailable', async () => {
    const down = new MomoPartnerRail({ ...config, baseUrl: `http://127.0.0.1:${await freePort()}` });
    try {
      const error = await down.submit('collection', request()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RailUnavailable);
      expect((error as Error).message).toMatch(/ECONNREFUSED/);
      await expect(down.status('disbursement', randomUUID())).rejects.toBeInstanceOf(RailUnavailable);
    } finally {
      await down.close();
    }
  });

  test('no secret in what the fake recorded or logged', () => {
    const recorded = JSON.stringify([fake.requests, fake.callbacksSent, fakeLog]);
    const { apiKey, subscriptionKey } = fake.config;
    expect(recorded).not.toContain(apiKey);
    expect(recorded).not.toContain(subscriptionKey);
    expect(recorded).not.toContain(Buffer.from(`${fake.config.apiUser}:${apiKey}`).toString('base64'));
    for (const r of received) expect(recorded).not.toContain(r.token);
    expect(fake.callbacksSent.length).toBeGreaterThan(0);
    expect(fake.callbacksSent.every((c) => c.url.endsWith('token=[redacted]'))).toBe(true);
  });
});
