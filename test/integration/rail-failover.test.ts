import { MTN_GH } from '../support/harness';
import { idempotencyKey, chargeBody, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { fundMerchant } from '../support/fund-merchant';
import { failOver } from '../../src/persistence/partner/rail-failover-store';
import { updateMerchantSettings } from '../../src/persistence/merchants/merchant-settings-store';
import { drainPartner, resumePartner } from '../../src/persistence/partner/partner-drain';
import { systemActor } from '../../src/persistence/merchants/merchant-store';
import { PortalClient } from '../support/portal-client';
import { signedInUser, startPortalWeb, type PortalWeb } from '../support/portal-web';

/**
 * Issue 46, failover inside one payment, end to end: RAIL_ROUTES `mobile_money:*=momo|aggregator`,
 * the real adapters over HTTP to the fake MoMo partner and the fake aggregator, real PostgreSQL and
 * Temporal. The MoMo partner declining (every new request refused 400 COULD_NOT_PERFORM_TRANSACTION,
 * marked retry-elsewhere) and then down (its port closed: the connection is refused): each payment
 * is taken by the aggregator, listed with both attempts, paid once in both partners' books. An
 * acknowledged attempt never moves, and the status gate reads only the current attempt's answers.
 * The harness's close runs the ledger check.
 */

let p: PartnerHarness;
let m: TestMerchant;
let web: PortalWeb;

beforeAll(async () => {
  p = await startPartnerHarness({ aggregator: { fake: { approveAfterMs: 300 }, routes: 'mobile_money:*=momo|aggregator,bank:*=aggregator' } });
  m = await p.h.merchant({ verified: true });
  await fundMerchant(p.h, m.id, 500_000, 'GHS', 'live');
  web = await startPortalWeb(p.h);
});
afterAll(async () => {
  await web?.close();
  await p?.close();
});

const phone = (suffix: string) => `23324100${suffix}`;
const finished = (id: string) => p.h.temporal.client.workflow.getHandle(id).result() as Promise<{ status: string }>;

/** A live mobile-money charge of `merchant` (default m); `rail` is the partner its create answer names (the route's first). */
async function charge(suffix: string, merchant: TestMerchant = m, rail = 'momo'): Promise<string> {
  const res = await p.h.request('live', 'POST', '/v1/charges', {
    key: merchant.liveKey,
    body: chargeBody({ customer: { identifier: phone(suffix), name: 'Ama Mensah' }, reference: `fo-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  expect(res.json.rail).toBe(rail);
  return res.json.id as string;
}

async function payout(suffix: string): Promise<string> {
  const res = await p.h.request('live', 'POST', '/v1/payouts', {
    key: m.liveKey,
    body: { amount: 10_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: phone(suffix), name: 'Kofi' }, reference: `fo-po-${idempotencyKey()}`, metadata: {} },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  return res.json.id as string;
}

type Attempt = { number: number; partner: string; reference: string; outcome: string; reason: string | null; next_partner: string | null };
const get = async (kind: 'charges' | 'payouts', id: string) => (await p.h.request('live', 'GET', `/v1/${kind}/${id}`, { key: m.liveKey })).json as { status: string; rail: string; attempts: Attempt[] };

/** Both partners' books for a payment: every transaction either keeps under any of its references. */
function books(attempts: Attempt[], resource: 'collection' | 'disbursement') {
  return attempts.map((a) => ({ momo: p.fake.transaction(resource, a.reference) !== undefined, aggregator: p.aggregator!.transaction(resource, a.reference) !== undefined }));
}

test('the MoMo partner declining: a charge is refused there (retry elsewhere), taken by the aggregator, succeeds once; the API lists both attempts', async () => {
  p.fake.setDeclining(true);
  try {
    const id = await charge('5678');
    expect(await finished(id)).toMatchObject({ status: 'succeeded' });
    const after = await get('charges', id);
    expect(after).toMatchObject({ status: 'succeeded', rail: 'aggregator' });
    expect(after.attempts).toEqual([
      expect.objectContaining({ number: 1, partner: 'momo', outcome: 'refused', reason: 'refused COULD_NOT_PERFORM_TRANSACTION (retry elsewhere)', next_partner: 'aggregator' }),
      expect.objectContaining({ number: 2, partner: 'aggregator', outcome: 'current', reason: null, next_partner: null }),
    ]);
    expect(after.attempts[0].reference).not.toBe(after.attempts[1].reference);
    // Paid once: the aggregator keeps the second reference, the MoMo partner kept nothing.
    expect(books(after.attempts, 'collection')).toEqual([{ momo: false, aggregator: false }, { momo: false, aggregator: true }]);
    // The portal's page of the charge lists both attempts above its timeline.
    const { client } = await signedInUser(web.url, p.h.orm, m.id);
    const list = await client.get('/payments');
    expect((await client.post('/environment', { csrf: PortalClient.csrfOf(list.text), environment: 'live', return: '/payments' })).status).toBe(303);
    const page = (await client.get(`/payments/${id}`)).text;
    expect(page).toContain('<ol id="attempts"');
    expect(page).toMatch(/data-attempt="1" data-partner="momo" data-outcome="refused">Attempt 1 through the mobile-money partner \(MoMo\)[^<]*<code>[0-9a-f-]{36}<\/code>/);
    expect(page).toContain('refused: refused COULD_NOT_PERFORM_TRANSACTION (retry elsewhere); then the aggregator (card, bank and mobile money)');
    expect(page).toMatch(/data-attempt="2" data-partner="aggregator" data-outcome="current"/);
  } finally {
    p.fake.setDeclining(false);
  }
});

test('a refund of a charge that failed over goes back through the partner that took it (the aggregator), with its reference', async () => {
  p.fake.setDeclining(true);
  let id: string;
  try {
    id = await charge('5682');
    expect(await finished(id)).toMatchObject({ status: 'succeeded' });
  } finally {
    p.fake.setDeclining(false);
  }
  const taken = (await get('charges', id)).attempts[1];
  const refund = await p.h.request('live', 'POST', '/v1/refunds', { key: m.liveKey, body: { charge: id }, headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(refund.json).toMatchObject({ status: 'pending', rail: 'aggregator' });
  expect(await finished(refund.json.id)).toMatchObject({ status: 'succeeded' });
  const [ref] = await p.h.orm.em.getConnection().execute<Array<{ reference_id: string; partner: string }>>(`select reference_id::text, partner from rail_references where payment_id = ?`, [refund.json.id]);
  expect(ref.partner).toBe('aggregator');
  expect(p.aggregator!.transaction('refund', ref.reference_id)).toBeDefined();
  expect(p.fake.transaction('refund', ref.reference_id)).toBeUndefined();
  expect(taken.partner).toBe('aggregator');
});

test('the MoMo partner declining: a payout goes through the aggregator; one that the aggregator leaves PENDING cannot be failed on the first attempt\'s refusal', async () => {
  p.fake.setDeclining(true);
  let pendingId: string;
  try {
    const id = await payout('5679');
    expect(await finished(id)).toMatchObject({ status: 'succeeded' });
    const after = await get('payouts', id);
    expect(after.attempts.map((a) => [a.partner, a.outcome])).toEqual([['momo', 'refused'], ['aggregator', 'current']]);
    expect(books(after.attempts, 'disbursement')).toEqual([{ momo: false, aggregator: false }, { momo: false, aggregator: true }]);
    // 0004 at the aggregator: PENDING, no answer.
    pendingId = await payout('0004');
    // Until its second attempt's submission is answered and recorded (the aggregator's acknowledgement of the current reference).
    const acknowledged = async () =>
      (await p.h.orm.em.fork().getConnection().execute<Array<{ n: number }>>(
        `select count(*)::int as n from rail_answers a join rail_references r on r.payment_id = a.payment_id and r.reference_id = a.reference_id where a.payment_id = ? and a.outcome = 'acknowledged'`,
        [pendingId],
      ))[0].n;
    for (let i = 0; i < 200 && (await acknowledged()) === 0; i++) await new Promise((r) => setTimeout(r, 100));
  } finally {
    p.fake.setDeclining(false);
  }
  const pending = await get('payouts', pendingId);
  expect(pending.attempts.map((a) => a.outcome)).toEqual(['refused', 'current']);
  // The first attempt's refusal is recorded (rail_answers, `failed`), but it is not the current attempt's:
  // the database's status gate refuses to fail the payout on it, even through the store's marker.
  const em = p.h.orm.em.fork();
  const refused = await em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from rail_answers where payment_id = ? and outcome = 'failed'`, [pendingId]);
  expect(refused[0].n).toBe(1);
  await expect(
    em.transactional(async (tx) => {
      await tx.execute(`select set_config('payments.gate', ?, true)`, [`payout:${pendingId}:pending:failed`]);
      await tx.execute(`update payouts set status = 'failed' where id = ?`, [pendingId]);
    }),
  ).rejects.toThrow(/the partner has not said FAILED/);
  // Acknowledged (the aggregator keeps it, PENDING): the failover gate refuses to move it again.
  await expect(failOver(p.h.orm, pendingId, async () => true)).resolves.toEqual({ moved: false, why: 'the partner acknowledged the reference: only its word ends the payment' });
  // The aggregator's word ends it.
  const ref = pending.attempts[1].reference;
  expect(p.aggregator!.settle('disbursement', ref, { status: 'successful' })).toBe(true);
  expect(await finished(pendingId)).toMatchObject({ status: 'succeeded' });
});

test('a charge whose route is one partner never moves, and a refund never fails over', async () => {
  const id = await charge('5680');
  expect(await finished(id)).toMatchObject({ status: 'succeeded' });
  await expect(failOver(p.h.orm, id, async () => true)).resolves.toMatchObject({ moved: false });
  await expect(failOver(p.h.orm, 're_doesnotexist', async () => true)).resolves.toMatchObject({ moved: false, why: expect.stringContaining('a refund goes back through the partner that took its charge') });
  expect((await get('charges', id)).attempts.map((a) => [a.partner, a.outcome])).toEqual([['momo', 'current']]);
});

test('a merchant\'s own route (merchants set --routes) takes the place of the start\'s for its new payments; a partner the start lacks is skipped', async () => {
  const other = await p.h.merchant({ verified: true });
  await updateMerchantSettings(p.h.orm, other.id, { railRoutes: 'mobile_money:GHS=aggregator' });
  expect(await finished(await charge('5690', other, 'aggregator'))).toMatchObject({ status: 'succeeded' });
  // The start's route still applies to everyone else.
  const id = await charge('5691');
  expect(await finished(id)).toMatchObject({ status: 'succeeded' });
});

test('the MoMo partner drained (its breaker): new payments start at the aggregator; resumed, at MoMo again; a payment already at MoMo is never moved by it', async () => {
  const before = await charge('5692');
  await drainPartner(p.h.orm, 'momo', systemActor('test: drain'));
  try {
    const drained = await charge('5693', m, 'aggregator');
    expect(await finished(drained)).toMatchObject({ status: 'succeeded' });
    expect((await get('charges', drained)).attempts.map((a) => a.partner)).toEqual(['aggregator']);
  } finally {
    await resumePartner(p.h.orm, 'momo', systemActor('test: resume'));
  }
  expect(await finished(before)).toMatchObject({ status: 'succeeded' });
  expect((await get('charges', before)).rail).toBe('momo');
  const after = await charge('5694');
  expect(await finished(after)).toMatchObject({ status: 'succeeded' });
});

test('the MoMo partner down (its port closed): a charge never reaches it, the aggregator takes it; nothing at MoMo', async () => {
  await p.fake.close();
  const id = await charge('5681');
  expect(await finished(id)).toMatchObject({ status: 'succeeded' });
  const after = await get('charges', id);
  expect(after.attempts).toEqual([
    expect.objectContaining({ partner: 'momo', outcome: 'not_reached', next_partner: 'aggregator', reason: expect.stringMatching(/^never reached the partner \(\d+ submission\(s\), none delivered\)$/) }),
    expect.objectContaining({ partner: 'aggregator', outcome: 'current' }),
  ]);
  expect(books(after.attempts, 'collection')).toEqual([{ momo: false, aggregator: false }, { momo: false, aggregator: true }]);
});
