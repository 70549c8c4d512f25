import { MockActivityEnvironment } from '@temporalio/testing';
import { createPaymentReviewActivities } from '../../activities/payment-review';
import { evidenceMismatch } from '../../src/domain/charge-resolution';
import { recordOperatorAction } from '../../src/persistence/operators/operator-audit-store';
import { newId } from '../../src/support/new-id';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';

/**
 * Issue 29: "an operator can resolve a live payment only with the partner's evidence; the engine
 * checks that evidence against the partner's status when the partner answers". A charge resolved as
 * succeeded with evidence is watched by a payment review; its comparison (compareLateAnswer, on
 * PostgreSQL) finds the partner's transaction id in that evidence, or reports that it is not there.
 */

let partner: PartnerHarness;
let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES });
  h = partner.h;
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await partner?.close();
});

test('evidenceMismatch: the partner id must appear in the evidence (an id, or a statement line that carries it)', () => {
  expect(evidenceMismatch('ft-778', 'ft-778')).toBeNull();
  expect(evidenceMismatch('statement 2026-11-26 line 14: ft-778 120.00 GHS', 'ft-778')).toBeNull();
  expect(evidenceMismatch('ft-1', undefined)).toBeNull();
  expect(evidenceMismatch('ft-1', 'ft-778')).toMatch(/ft-778 is not in the evidence/);
});

test("a resolved charge's evidence is checked against the partner's SUCCESSFUL: another transaction id is a contradiction for an operator", async () => {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: '233240004567', name: 'Ama Mensah' }, reference: `evidence-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const chargeId = res.json.id as string;
  expect(await h.settled(chargeId)).toMatchObject({ status: 'succeeded' });
  await recordOperatorAction(h.orm, newId('audit'), {
    paymentId: chargeId,
    action: 'charge.resolve',
    operator: 'ops:ama',
    reason: 'partner confirmed by phone',
    before: { status: 'awaiting_action' },
    after: { status: 'succeeded', evidence: 'ft-given-by-phone' },
    requestId: `req-${idempotencyKey()}`,
    batchId: null,
    merchantId: m.id,
    environment: 'live',
    at: new Date().toISOString(),
  });
  const activities = createPaymentReviewActivities({ orm: h.orm, secretBox: h.deps.secretBox });
  const compare = (financialTransactionId: string) =>
    new MockActivityEnvironment().run(activities.compareLateAnswer, { paymentId: chargeId, product: 'collection' as const, status: { status: 'succeeded' as const, financialTransactionId }, at: new Date().toISOString() });
  expect(await compare('ft-given-by-phone')).toMatchObject({ verdict: 'agrees' });
  expect(await compare('ft-someone-else')).toMatchObject({ verdict: 'disagrees', why: expect.stringMatching(/ft-someone-else is not in the evidence/) });
});
