/**
 * The fake partner's refund behaviours (issue 45; docs/partner-rail.md, "Refunds"): a refund plays
 * what the payer of the request-to-pay it refunds chooses, `…01NN` playing `00NN`, the request-to-pay
 * itself plain success. Each behaviour through the real adapter over real HTTP, with the callbacks
 * taken by a local server and checked with verifyCallback; and the refunds' lines on the
 * disbursement statement.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { isRefundLine } from '../../src/chaos/partner-records';
import { BEHAVIOUR_BY_SUFFIX, refundBehaviourOf } from '../../src/rail/fake-partner';
import { verifyCallback } from '../../src/rail/momo-callback';
import { parseStatementCsv, parseStatementJson } from '../../src/rail/momo-statement';
import { RailUnavailable } from '../../src/rail/partner-rail';
import { callbacksOf, chargeRequest, finalStatus, paidCharge, refundRequest, sleep, startRefundWorld, waitFor, type RefundWorld } from './momo-refund-support';

const APPROVE_MS = 120;
const LATE_CALLBACK_MS = 5 * APPROVE_MS;
/** `0112`: a refund's late success takes the disbursement timing (latePayoutSuccessMs). */
const LATE_PAYOUT_MS = 1_500;
const SLOW_MS = 4_000;
const TIMEOUT_MS = 2_500;
/** How long "no callback" is watched for: well past the moment a callback would have come. */
const QUIET_MS = 4 * APPROVE_MS;

let world: RefundWorld;
beforeAll(async () => {
  world = await startRefundWorld({ approveAfterMs: APPROVE_MS, lateCallbackMs: LATE_CALLBACK_MS, latePayoutSuccessMs: LATE_PAYOUT_MS, slowMs: SLOW_MS, timeoutMs: TIMEOUT_MS });
});
afterAll(() => world?.close());

/** A paid request-to-pay of a payer ending `suffix`, and a refund of all of it, not yet sent. */
async function refundOf(suffix: string) {
  const { charge, final } = await paidCharge(world, suffix);
  expect(final).toMatchObject({ status: 'succeeded', amount: 15_000 });
  return { charge, refund: refundRequest(charge) };
}

async function callbackOf(referenceId: string) {
  const [callback] = await waitFor(`the callback of ${referenceId}`, () => callbacksOf(world, referenceId).length >= 1 && callbacksOf(world, referenceId));
  return callback!;
}

const today = () => new Date().toISOString().slice(0, 10);

describe('the refund behaviour table', () => {
  test('a request-to-pay payer ending 01NN chooses 00NN for its refunds; any other payer, plain success', () => {
    for (const [suffix, behaviour] of Object.entries(BEHAVIOUR_BY_SUFFIX)) expect(refundBehaviourOf(`2332412301${suffix.slice(2)}`)).toBe(behaviour);
    expect(refundBehaviourOf('233241230101')).toBe('refuse_later');
    expect(refundBehaviourOf('233241230112')).toBe('late_success');
    for (const other of ['233241230001', '233241230012', '233241230100', '233241230116', '233241230199', '233241234567', '0101x', '']) expect(refundBehaviourOf(other)).toBe('success');
  });

  test('docs/partner-rail.md lists every refund suffix of the code, and no other', () => {
    const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/partner-rail.md'), 'utf8');
    const section = doc.slice(doc.indexOf('| request-to-pay payer ends in |'));
    const table = section.slice(0, section.indexOf('\n\n'));
    const suffixes = [...table.matchAll(/^\| `(01\d{2})` \|/gm)].map((m) => m[1]);
    expect(suffixes.sort()).toEqual(Object.keys(BEHAVIOUR_BY_SUFFIX).map((s) => `01${s.slice(2)}`).sort());
  });

  test('the request-to-pay of a 01NN payer is itself plain success, whatever NN', async () => {
    const suffixes = Object.keys(BEHAVIOUR_BY_SUFFIX).map((s) => `01${s.slice(2)}`);
    const charges = suffixes.map((s) => chargeRequest(s));
    for (const charge of charges) expect(await world.rail.submit('collection', charge)).toEqual({ kind: 'accepted' });
    for (const charge of charges) {
      expect(await finalStatus(world.rail, 'collection', charge.referenceId)).toEqual({ status: 'succeeded', financialTransactionId: expect.any(String), amount: 15_000, currency: 'GHS' });
      await waitFor('its one callback', () => callbacksOf(world, charge.referenceId).length >= 1);
    }
    await sleep(2 * APPROVE_MS);
    for (const charge of charges) expect(callbacksOf(world, charge.referenceId)).toHaveLength(1);
  });
});

// Each plays on its own request-to-pay and refund, so they run side by side (most of their time is the fake's timers).
describe('each refund behaviour, through the adapter', () => {
  test.concurrent('any other payer: the refund succeeds, one callback', async () => {
    const { refund } = await refundOf('4567');
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    const final = await finalStatus(world.rail, 'refund', refund.referenceId);
    expect(final).toMatchObject({ status: 'succeeded', amount: 15_000, currency: 'GHS' });
    const callback = await callbackOf(refund.referenceId);
    expect(verifyCallback(world.config, 'refund', refund.referenceId, callback.token, callback.body)).toEqual({ product: 'refund', referenceId: refund.referenceId, claimed: final });
  });

  test.concurrent('0101: refused later, FAILED NOT_ENOUGH_FUNDS (insufficient_funds), by status and callback', async () => {
    const { refund } = await refundOf('0101');
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    const expected = { status: 'failed', reason: 'NOT_ENOUGH_FUNDS', failureClass: 'insufficient_funds', amount: 15_000, currency: 'GHS' };
    expect(await finalStatus(world.rail, 'refund', refund.referenceId)).toEqual(expected);
    const callback = await callbackOf(refund.referenceId);
    expect(verifyCallback(world.config, 'refund', refund.referenceId, callback.token, callback.body)).toEqual({ product: 'refund', referenceId: refund.referenceId, claimed: expected });
  });

  test.concurrent('0102: refused at once, 404 PAYEE_NOT_FOUND (invalid_recipient); nothing kept', async () => {
    const { refund } = await refundOf('0102');
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'refused', reason: 'PAYEE_NOT_FOUND', failureClass: 'invalid_recipient' });
    expect(world.fake.transaction('refund', refund.referenceId)).toBeUndefined();
    expect(await world.rail.status('refund', refund.referenceId)).toEqual({ status: 'unknown' });
  });

  test.concurrent('0103: FAILED PAYEE_NOT_ALLOWED_TO_RECEIVE (invalid_recipient)', async () => {
    const { refund } = await refundOf('0103');
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'refund', refund.referenceId)).toMatchObject({ status: 'failed', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE', failureClass: 'invalid_recipient' });
    await callbackOf(refund.referenceId);
  });

  test.concurrent('0104: no answer, PENDING whenever asked, no callback; the settle control (over HTTP, under disbursement) ends it', async () => {
    const { refund } = await refundOf('0104');
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    const until = Date.now() + QUIET_MS;
    while (Date.now() < until) {
      expect(await world.rail.status('refund', refund.referenceId)).toEqual({ status: 'pending' });
      await sleep(APPROVE_MS / 2);
    }
    expect(callbacksOf(world, refund.referenceId)).toEqual([]);

    const { apiUser, apiKey, subscriptionKey } = world.fake.config;
    const { access_token: token } = (await (await fetch(`${world.fake.url}/disbursement/token/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`, 'ocp-apim-subscription-key': subscriptionKey } })).json()) as { access_token: string };
    const settled = await fetch(`${world.fake.url}/disbursement/_fake/settle/${refund.referenceId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'ocp-apim-subscription-key': subscriptionKey, 'x-target-environment': 'sandbox', 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'SUCCESSFUL' }),
    });
    expect(settled.status).toBe(204);
    expect(await world.rail.status('refund', refund.referenceId)).toMatchObject({ status: 'succeeded' });
    await callbackOf(refund.referenceId);
  });

  test.concurrent('0105: the callback twice, the same body, both genuine', async () => {
    const { refund } = await refundOf('0105');
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    const callbacks = await waitFor('two callbacks', () => callbacksOf(world, refund.referenceId).length >= 2 && callbacksOf(world, refund.referenceId));
    await sleep(2 * APPROVE_MS);
    expect(callbacksOf(world, refund.referenceId)).toHaveLength(2);
    expect(callbacks[1]!.body).toBe(callbacks[0]!.body);
    const final = await world.rail.status('refund', refund.referenceId);
    expect(final.status).toBe('succeeded');
    for (const c of callbacks) expect(verifyCallback(world.config, 'refund', refund.referenceId, c.token, c.body)).toEqual({ product: 'refund', referenceId: refund.referenceId, claimed: final });
  });

  test.concurrent('0106: a 500 first (RailUnavailable, nothing kept); the retry with the same reference succeeds', async () => {
    const { refund } = await refundOf('0106');
    const error = await world.rail.submit('refund', refund).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RailUnavailable);
    expect(error).toMatchObject({ status: 500, retryable: true });
    expect(world.fake.transaction('refund', refund.referenceId)).toBeUndefined();
    expect(await world.rail.status('refund', refund.referenceId)).toEqual({ status: 'unknown' });
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'refund', refund.referenceId)).toMatchObject({ status: 'succeeded' });
    await callbackOf(refund.referenceId);
  });

  test.concurrent('0107: slow answer, RailUnavailable at our timeout; the retry is a duplicate; the status succeeds', async () => {
    const { refund } = await refundOf('0107');
    const started = Date.now();
    const error = await world.rail.submit('refund', refund).catch((e: unknown) => e);
    const waited = Date.now() - started;
    expect(error).toBeInstanceOf(RailUnavailable);
    expect((error as Error).message).toMatch(/timeout/);
    expect(waited).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(waited).toBeLessThan(SLOW_MS);
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'duplicate' });
    expect(await finalStatus(world.rail, 'refund', refund.referenceId)).toMatchObject({ status: 'succeeded' });
  });

  test.concurrent('0108: SUCCESSFUL found only by polling, never a callback', async () => {
    const { refund } = await refundOf('0108');
    const accepted = Date.now();
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'refund', refund.referenceId)).toMatchObject({ status: 'succeeded' });
    await sleep(Math.max(0, accepted + QUIET_MS - Date.now()));
    expect(callbacksOf(world, refund.referenceId)).toEqual([]);
  });

  test.concurrent('0109: SUCCESSFUL by status first, the callback at lateCallbackMs', async () => {
    const { refund } = await refundOf('0109');
    const accepted = Date.now();
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    expect(await finalStatus(world.rail, 'refund', refund.referenceId)).toMatchObject({ status: 'succeeded' });
    const callback = await callbackOf(refund.referenceId);
    expect(callback.at - accepted).toBeGreaterThanOrEqual(LATE_CALLBACK_MS - 50);
  });

  test.concurrent('0112: late success, with the disbursement timing (latePayoutSuccessMs), one callback then', async () => {
    const { refund } = await refundOf('0112');
    const accepted = Date.now();
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    await sleep(3 * APPROVE_MS);
    expect(await world.rail.status('refund', refund.referenceId)).toEqual({ status: 'pending' });
    expect(await finalStatus(world.rail, 'refund', refund.referenceId, LATE_PAYOUT_MS + 5_000)).toMatchObject({ status: 'succeeded', amount: 15_000 });
    expect(Date.now() - accepted).toBeGreaterThanOrEqual(LATE_PAYOUT_MS - 50);
    const callback = await callbackOf(refund.referenceId);
    expect(callback.at - accepted).toBeGreaterThanOrEqual(LATE_PAYOUT_MS - 50);
  });

  test.concurrent('0113: a second submission of the reference is refused 400 NOT_ALLOWED (declined); the first still succeeds', async () => {
    const { refund } = await refundOf('0113');
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'refused', reason: 'NOT_ALLOWED', failureClass: 'declined' });
    expect(await finalStatus(world.rail, 'refund', refund.referenceId)).toMatchObject({ status: 'succeeded', amount: 15_000 });
  });

  test.concurrent('0114: no answer (PENDING, no callback), and a second submission refused 400 NOT_ALLOWED', async () => {
    const { refund } = await refundOf('0114');
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'refused', reason: 'NOT_ALLOWED', failureClass: 'declined' });
    await sleep(QUIET_MS);
    expect(await world.rail.status('refund', refund.referenceId)).toEqual({ status: 'pending' });
    expect(callbacksOf(world, refund.referenceId)).toEqual([]);
  });

  test.concurrent('0115: SUCCESSFUL for one minor unit less than asked (status and callback)', async () => {
    const { refund } = await refundOf('0115');
    expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
    const final = await finalStatus(world.rail, 'refund', refund.referenceId);
    expect(final).toMatchObject({ status: 'succeeded', amount: 14_999, currency: 'GHS' });
    const callback = await callbackOf(refund.referenceId);
    expect(verifyCallback(world.config, 'refund', refund.referenceId, callback.token, callback.body)).toMatchObject({ claimed: { amount: 14_999 } });
  });
});

describe("refunds on the partner's disbursement statement", () => {
  test('every refund received today, in the line format, the payer paid back as its party; 0110 twice, 0111 one unit more, 0115 one less; none on the collection statement', async () => {
    const made: Record<string, { charge: ReturnType<typeof chargeRequest>; refund: ReturnType<typeof refundRequest> }> = {};
    for (const suffix of ['4567', '0101', '0104', '0110', '0111', '0115']) {
      const { charge, refund } = await refundOf(suffix);
      refund.amount = 10_005;
      expect(await world.rail.submit('refund', refund)).toEqual({ kind: 'accepted' });
      made[suffix] = { charge, refund };
    }
    for (const suffix of ['4567', '0101', '0110', '0111', '0115']) await finalStatus(world.rail, 'refund', made[suffix]!.refund.referenceId);

    const { apiUser, apiKey, subscriptionKey } = world.fake.config;
    const { access_token: token } = (await (await fetch(`${world.fake.url}/disbursement/token/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`, 'ocp-apim-subscription-key': subscriptionKey } })).json()) as { access_token: string };
    const headers = { authorization: `Bearer ${token}`, 'ocp-apim-subscription-key': subscriptionKey, 'x-target-environment': 'sandbox' };
    const answer = await fetch(`${world.fake.url}/disbursement/v1_0/statement?date=${today()}`, { headers });
    expect(answer.status).toBe(200);
    const statement = parseStatementJson(await answer.json());
    expect(statement.product).toBe('disbursement');
    const of = (suffix: string) => statement.lines.filter((l) => l.referenceId === made[suffix]!.refund.referenceId);

    const plain = made['4567']!;
    expect(of('4567')).toEqual([{
      referenceId: plain.refund.referenceId,
      financialTransactionId: expect.stringMatching(/^[0-9]+$/),
      externalId: plain.refund.externalId,
      amount: '100.05',
      currency: 'GHS',
      status: 'SUCCESSFUL',
      reason: null,
      party: '****4567',
      time: expect.any(String),
      completedAt: expect.any(String),
    }]);
    expect(plain.refund.externalId).toMatch(/^re_/);
    expect(of('0101')).toEqual([expect.objectContaining({ status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS', financialTransactionId: null, party: '****0101' })]);
    expect(of('0104')).toEqual([expect.objectContaining({ status: 'PENDING', completedAt: null })]);
    expect(of('0110')).toHaveLength(2);
    expect(of('0111')).toEqual([expect.objectContaining({ amount: '100.06' })]);
    expect(of('0115')).toEqual([expect.objectContaining({ amount: '100.04' })]);

    // The chaos run's oracle (src/chaos/partner-records.ts) tells a refund's line from a transfer's by its externalId.
    const refundLines = new Set(statement.lines.filter(isRefundLine).map((l) => l.referenceId));
    for (const { refund } of Object.values(made)) expect(refundLines.has(refund.referenceId)).toBe(true);
    expect(isRefundLine({ ...of('4567')[0]!, externalId: 'po_1' })).toBe(false);
    // The CSV file says the same.
    const file = await fetch(`${world.fake.url}/disbursement/v1_0/statement.csv?date=${today()}`, { headers });
    expect(parseStatementCsv(await file.text())).toEqual(statement);
    // The collection statement lists the request-to-pays, never a refund.
    const refunds = new Set(Object.values(made).map((m) => m.refund.referenceId));
    const collection = world.fake.statement('collection', today());
    expect(collection.lines.filter((l) => refunds.has(l.referenceId))).toEqual([]);
    expect(collection.lines.filter((l) => l.referenceId === plain.charge.referenceId)).toHaveLength(1);
    // The partner's books (what the simulation's oracle reads): the refunds under disbursement, resource refund.
    const books = world.fake.transactions('disbursement').filter((t) => refunds.has(t.referenceId));
    expect(books).toHaveLength(6);
    expect(books.every((t) => t.resource === 'refund' && t.state.externalId.startsWith('re_'))).toBe(true);
    // A refund's line can be amended under disbursement, as any other.
    world.fake.amendStatement('disbursement', plain.refund.referenceId, { omit: true });
    expect(world.fake.statement('disbursement', today()).lines.filter((l) => l.referenceId === plain.refund.referenceId)).toEqual([]);
  });

  test('a refund refused at once (0102, or over the amount) is not listed', async () => {
    const { refund } = await refundOf('0102');
    expect((await world.rail.submit('refund', refund)).kind).toBe('refused');
    const { charge } = await paidCharge(world);
    const over = refundRequest(charge, { amount: 15_001, referenceId: randomUUID() });
    expect((await world.rail.submit('refund', over)).kind).toBe('refused');
    const listed = world.fake.statement('disbursement', today()).lines.map((l) => l.referenceId);
    expect(listed).not.toContain(refund.referenceId);
    expect(listed).not.toContain(over.referenceId);
  });
});
