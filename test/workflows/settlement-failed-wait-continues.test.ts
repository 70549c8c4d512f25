import type { ChargeAttention } from '../../src/domain/charge-attention';
import { PARTNER_WAIT_HISTORY_EVENTS } from '../../src/domain/partner-wait';
import { SA } from '../../src/domain/search-attributes';
import { retrySettlementUpdate } from '../../workflows/settlement-retry-messages';
import { startSettlementTestEnv, type SettlementTestEnv } from './support/settlement-env';
import { runsOf } from './support/runs-of';
import { waitFor } from './support/wait-for';

// Issue 43 (Medium: no continue-as-new in partner waits; the failed batch's build check): a failed
// batch waits for `settlements retry` with an hourly build check (five history events an hour), so a
// batch nobody retried was terminated by the server's history limit after about a year, and then
// could not be retried at all. The wait now continues as new (FAILED_BATCH_WAIT_CONTINUES_PATCH):
// the next run's sweep finds the batch written and waits again, flagged; a retry reaches the latest run.

const DAY_MS = 24 * 3600_000;

let h: SettlementTestEnv;
beforeAll(async () => {
  h = await startSettlementTestEnv();
});
afterAll(async () => {
  await h?.close();
});

test('a failed batch waiting 20 days for its retry continues as new, flagged, nothing moved again; the retry sent by id reaches the latest run', async () => {
  const merchantId = h.merchant(12_000);
  const handle = await h.start({ merchantId, outcome: 'failed' });
  const firstRunId = (await handle.describe()).runId;
  await waitFor(async () => h.store.transitionsOf(handle.workflowId).length === 1);
  await h.env.sleep(20 * DAY_MS);

  const latest = await h.env.client.workflow.getHandle(handle.workflowId).describe();
  expect(latest.status.name).toBe('RUNNING');
  expect(latest.typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
  const runs = await runsOf(h.env.client, handle.workflowId, firstRunId);
  expect(runs.length).toBeGreaterThan(1);
  expect(runs.at(-1)!.runId).toBe(latest.runId);
  for (const run of runs) expect(run.events).toBeLessThan(PARTNER_WAIT_HISTORY_EVENTS + 50);
  // Each run swept (the batch as written: nothing moved); one failed transition, the money back in available.
  expect(h.store.calls.filter((c) => c.activity === 'sweepSettlement' && c.settlementId === handle.workflowId)).toHaveLength(runs.length);
  expect(h.store.transitionsOf(handle.workflowId).map((t) => t.to)).toEqual(['failed']);
  expect(h.store.balanceOf(merchantId)).toEqual({ available: 12_000, inTransit: 0 });
  // What payments stuck shows: the latest run still says why it waits.
  const attention = await h.env.client.workflow.getHandle(handle.workflowId).query<ChargeAttention>('chargeAttention');
  expect(attention).toMatchObject({ needsAttention: true, step: 'settlement payment' });

  const answer = await h.env.client.workflow.getHandle(handle.workflowId).executeUpdate(retrySettlementUpdate, { args: [{ reason: 'account fixed after 20 days', operator: 'cli:ops' }] });
  expect(await h.env.client.workflow.getHandle(handle.workflowId).result()).toMatchObject({ status: 'failed', retried_as: answer.retried_as });
  expect(await h.env.client.workflow.getHandle(answer.retried_as).result()).toMatchObject({ status: 'paid', amount: 12_000 });
  expect(h.store.balanceOf(merchantId)).toEqual({ available: 0, inTransit: 0 });
});
