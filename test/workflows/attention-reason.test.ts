import type { WorkflowHandle } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { HELD_FOR_REVIEW_REASON } from '../../src/domain/attention-reason';
import type { ChargeAttention } from '../../src/domain/charge-attention';
import { SA } from '../../src/domain/search-attributes';
import type { chargeWorkflow } from '../../workflows/charge';
import { chargeAttentionQuery, retryStepUpdate } from '../../workflows/messages';
import { decidePayoutUpdate } from '../../workflows/payout-messages';
import { startChargeTestEnv, type ChargeTestEnv } from './support/charge-env';
import { startPayoutTestEnv, type PayoutTestEnv } from './support/payout-env';
import { waitFor } from './support/wait-for';

// Issue 31, finding 10: NeedsAttentionReason, the search attribute a saved view of the Temporal UI
// shows as the stuck list's reason column, is set in the same upsert as NeedsAttention (a short kind
// and step: no id, no amount) and unset when NeedsAttention clears.

let payouts: PayoutTestEnv;
let charges: ChargeTestEnv;
beforeAll(async () => {
  payouts = await startPayoutTestEnv();
  charges = await startChargeTestEnv();
});
afterAll(async () => {
  await payouts?.close();
  await charges?.close();
});

async function attention(env: { searchAttributes(id: string): Promise<TypedSearchAttributes> }, id: string) {
  const sa = await env.searchAttributes(id);
  return { needsAttention: sa.get(SA.NeedsAttention), reason: sa.get(SA.NeedsAttentionReason) };
}

test('a payout held for review: "held for review" while held, unset once approved', async () => {
  const record = await payouts.payout({ status: 'held_for_review', amount: 6_000_000 });
  const handle = await payouts.start(record);
  await waitFor(async () => (await handle.query('nextTimer')) !== null);
  expect(await attention(payouts, record.id)).toEqual({ needsAttention: true, reason: HELD_FOR_REVIEW_REASON });
  await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', reason: 'known supplier', operator: 'ui:jane' }] });
  expect(await handle.result()).toMatchObject({ status: 'succeeded' });
  expect(await attention(payouts, record.id)).toEqual({ needsAttention: false, reason: undefined });
});

test('a payout the partner has not answered: "waiting: partner rail", unset once it is answered', async () => {
  const record = await payouts.payout({ sandboxOutcome: 'indeterminate' });
  const handle = await payouts.start(record);
  await waitFor(async () => (await handle.query('nextTimer')) !== null);
  expect(await attention(payouts, record.id)).toEqual({ needsAttention: true, reason: 'waiting: partner rail' });
  expect(await handle.result()).toMatchObject({ status: 'succeeded' });
  expect(await attention(payouts, record.id)).toEqual({ needsAttention: false, reason: undefined });
});

test('a charge database step that gave up: "step gave up: <step>" with no id or amount, unset once retried', async () => {
  const draft = await charges.draft();
  charges.store.breakStep(draft.id, 'applyChargeTransition');
  await charges.start(draft);
  const handle: WorkflowHandle<typeof chargeWorkflow> = charges.env.client.workflow.getHandle<typeof chargeWorkflow>(draft.id);
  for (let minute = 0; minute < 240; minute++) {
    const state: ChargeAttention = await handle.query(chargeAttentionQuery);
    if (state.needsAttention && state.giveUps >= 1) break;
    await charges.env.sleep('1 minute');
  }
  const marked = await attention(charges, draft.id);
  expect(marked).toEqual({ needsAttention: true, reason: 'step gave up: charge -> succeeded' });
  expect(String(marked.reason)).not.toContain(draft.id);
  expect(String(marked.reason)).not.toContain(String(draft.amount));
  charges.store.heal(draft.id);
  await handle.executeUpdate(retryStepUpdate, { args: [{ reason: 'database restored', operator: 'ui:jane' }] });
  expect(await charges.settle(draft.id)).toMatchObject({ status: 'succeeded' });
  expect(await attention(charges, draft.id)).toEqual({ needsAttention: false, reason: undefined });
});
