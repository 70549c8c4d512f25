/**
 * Issue 18: every payment workflow explains itself in the Temporal UI: a static summary and static
 * details (merchant, amount, currency, channel, environment), and one query, `record`, answering the
 * current record on every type. Checked on a charge, its refund and a payout, as the API starts them.
 */
import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness, SANDBOX_QUEUES } from '../support/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
});
afterAll(() => h?.close());

async function described(id: string) {
  const description = await h.temporal.client.workflow.getHandle(id).describe();
  return { summary: await description.staticSummary(), details: await description.staticDetails() };
}

const record = (id: string) => h.temporal.client.workflow.getHandle(id).query<{ id: string; status: string } | null>('record');

test('a charge, its refund and a payout: summary, details and the record query', async () => {
  const m = await h.merchant();
  const post = (path: string, body: unknown) => h.request('sandbox', 'POST', path, { key: m.testKey, headers: { 'Idempotency-Key': idempotencyKey() }, body });

  const charge = (await post('/v1/charges', chargeBody({ amount: 15_000 }))).json;
  expect(await described(charge.id)).toEqual({
    summary: `sandbox charge 15000 GHS via mobile_money for ${m.id}`,
    details: expect.stringContaining(`**Charge** \`${charge.id}\``),
  });
  const { details } = await described(charge.id);
  for (const line of [`- merchant: \`${m.id}\``, '- amount: 15000 GHS (minor units)', '- channel: mobile_money', '- environment: sandbox']) expect(details).toContain(line);
  expect(await h.settled(charge.id)).toMatchObject({ status: 'succeeded' });
  expect(await record(charge.id)).toMatchObject({ id: charge.id, status: 'succeeded', amount: 15_000, currency: 'GHS' });

  const refund = (await post('/v1/refunds', { charge: charge.id, amount: 5_000 })).json;
  expect(refund.id).toMatch(/^re_/);
  const refundView = await described(refund.id);
  expect(refundView.details).toContain(`- charge: ${charge.id}`);
  expect(refundView.details).toContain('- amount: 5000 GHS (minor units)');
  expect(await record(refund.id)).toMatchObject({ id: refund.id });

  await fundMerchant(h, m.id, 100_000);
  const payout = (await post('/v1/payouts', { amount: 20_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: 'self-description' })).json;
  expect(payout.id).toMatch(/^po_/);
  const payoutView = await described(payout.id);
  expect(payoutView.summary).toContain(`sandbox payout 20000 GHS via mobile_money for ${m.id}`);
  expect(payoutView.details).toContain(`**Payout** \`${payout.id}\``);
  expect(payoutView.details).not.toContain('Kofi'); // no customer data in the history
  expect(await record(payout.id)).toMatchObject({ id: payout.id, amount: 20_000 });
});
