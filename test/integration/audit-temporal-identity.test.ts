/**
 * Issue 43 (Low: a raw update's audit identity is whatever the sender claims). Against the suite's
 * PostgreSQL and Temporal dev server with a real worker: a payout's decidePayout sent raw by a client
 * of its own identity (as the Temporal UI or a script would) names an operator of its choosing; the
 * audit row keeps that claim and, beside it, the identity Temporal recorded for the update
 * (`temporal_identity`, read by the worker from the update's acceptance in the run's history).
 */
import { Client } from '@temporalio/client';
import { codecDataConverter } from '../../src/temporal/payload-codec';
import { listOperatorAudit } from '../../src/persistence/operators/operator-audit-store';
import { decidePayoutUpdate } from '../../workflows/payout-messages';
import { fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, SANDBOX_QUEUES } from '../support/harness';
import { testPayloadCodec } from '../support/payload-codec';
import { until } from '../support/webhook-fixtures';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
});
afterAll(() => h?.close());

test("a raw decidePayout: the row keeps the operator it claims and Temporal's identity of its sender", async () => {
  const merchant = await h.merchant();
  await fundMerchant(h, merchant.id, 1_000_000);
  const res = await h.request('sandbox', 'POST', '/v1/payouts', {
    key: merchant.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: { amount: 50_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: 'identity', metadata: { sandbox_outcome: 'held_for_review' } },
  });
  expect(res.json.status).toBe('held_for_review');
  const id = res.json.id as string;

  const raw = new Client({ connection: h.temporal.connection, namespace: h.temporal.namespace, identity: 'script-7@ops-laptop', dataConverter: codecDataConverter(testPayloadCodec()) });
  const handle = raw.workflow.getHandle(id);
  await until('the payout waits for a decision', async () => ((await handle.query('nextTimer').catch(() => null)) !== null ? true : undefined));
  await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'reject', operator: 'ops:someone-else', reason: 'recipient unknown' }] });

  const row = await until('the audit row has its identity', async () => {
    const [first] = (await listOperatorAudit(h.orm, { paymentId: id, limit: 5 })).data;
    return first?.temporal_identity ? first : undefined;
  });
  expect(row).toMatchObject({ action: 'payout.reject', operator: 'ops:someone-else', reason: 'recipient unknown', temporal_identity: 'script-7@ops-laptop' });
  expect(await h.temporal.client.workflow.getHandle(id).result()).toMatchObject({ status: 'failed' });
});
