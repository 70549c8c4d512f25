import { randomBytes, randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createRailActivities } from '../../activities/rail';
import type { FakePartner } from '../../src/rail/fake-partner';
import type { MomoPartnerRail } from '../../src/rail/momo-adapter';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';

/**
 * Issue 29, findings 5, 6 and 7, on the rail's activities (activities/rail.ts) against PostgreSQL and
 * the fake partner over HTTP: a retried or repeated submission that the partner refuses is checked
 * against its status before it is taken as final; a worker without the rail never fails a payment
 * that may already have reached the partner; the partner's transaction id is kept on the payment.
 */

let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;
let adapter: MomoPartnerRail;
let m: TestMerchant;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES });
  ({ h, fake, adapter } = partner);
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await partner?.close();
});

async function liveCharge(suffix: string): Promise<string> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: `23324000${suffix}`, name: 'Ama Mensah' }, reference: `rail-act-${suffix}-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  return res.json.id as string;
}

const referenceRow = async (paymentId: string) =>
  (
    await h.orm.em
      .getConnection()
      .execute<Array<{ reference_id: string; partner_transaction_id: string | null }>>(`select reference_id::text, partner_transaction_id from rail_references where payment_id = ?`, [paymentId])
  )[0];

test('a repeated submission refused by a partner that validates before it de-duplicates (0013) is checked against the status: not final (finding 6)', async () => {
  const chargeId = await liveCharge('0013');
  expect(await h.settled(chargeId)).toMatchObject({ status: 'succeeded' });
  const activities = createRailActivities({ orm: h.orm, secretBox: h.deps.secretBox, rail: adapter });
  const before = fake.requests.length;
  const again = await new MockActivityEnvironment({ attempt: 2 }).run(activities.railSubmit, { paymentId: chargeId, product: 'collection' as const });
  expect(again).toEqual({ kind: 'duplicate' });
  const resubmitted = await new MockActivityEnvironment().run(activities.railSubmit, { paymentId: chargeId, product: 'collection' as const, resubmit: true });
  expect(resubmitted).toEqual({ kind: 'duplicate' });
  // The partner did refuse both copies (400), and was asked for the status each time.
  const seen = fake.requests.slice(before);
  const { reference_id: referenceId } = await referenceRow(chargeId);
  expect(seen.filter((r) => r.method === 'POST').length).toBe(2);
  expect(seen.filter((r) => r.method === 'GET' && r.path.includes(referenceId)).length).toBeGreaterThanOrEqual(2);
});

test('a first submission refused at once stays final (0002): nothing was kept at the partner', async () => {
  const chargeId = await liveCharge('0002');
  expect(await h.settled(chargeId)).toMatchObject({ status: 'failed', failureClass: 'invalid_recipient' });
});

test("a worker without the rail: `no_rail` only for a payment with no reference (nothing sent); with one, retried for a worker that has the rail (finding 5)", async () => {
  const noRail = createRailActivities({ orm: h.orm, secretBox: h.deps.secretBox });
  const fresh = `txn_${randomBytes(12).toString('hex')}`;
  expect(await new MockActivityEnvironment().run(noRail.railSubmit, { paymentId: fresh, product: 'collection' as const })).toEqual({ kind: 'no_rail' });
  const sent = `txn_${randomBytes(12).toString('hex')}`;
  await h.orm.em.getConnection().execute(`insert into rail_references (payment_id, product, reference_id, environment) values (?, 'collection', ?, 'live')`, [sent, randomUUID()]);
  await expect(new MockActivityEnvironment({ attempt: 2 }).run(noRail.railSubmit, { paymentId: sent, product: 'collection' as const })).rejects.toMatchObject({ type: 'NoLiveRail', nonRetryable: false });
});

test("the partner's transaction id is kept on the payment once it says SUCCESSFUL (finding 7)", async () => {
  const chargeId = await liveCharge('4242');
  expect(await h.settled(chargeId)).toMatchObject({ status: 'succeeded' });
  const row = await referenceRow(chargeId);
  expect(row.partner_transaction_id).toEqual(expect.any(String));
  expect(row.partner_transaction_id!.length).toBeGreaterThan(0);
});
