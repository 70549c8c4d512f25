import { LIVE_PAYOUT_DEADLINE_MS, PARTNER_CALLBACK_SIGNAL } from '../../src/domain/live-rail';
import { PARTNER_WAIT_HISTORY_EVENTS } from '../../src/domain/partner-wait';
import { SA } from '../../src/domain/search-attributes';
import { startSettlementTestEnv, type SettlementTestEnv } from './support/settlement-env';
import { runsOf } from './support/runs-of';
import { waitFor } from './support/wait-for';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../../src/domain/settlement-start';
import { settlementStartSearchAttributePairs } from '../../src/domain/settlement-search-attributes';
import { newId } from '../../src/support/new-id';
import { taskQueueFor } from '../../src/temporal/task-queues';

// Issue 43 (Medium: no continue-as-new in partner waits; unknown final after an acknowledgement): a
// live settlement batch's wait for the partner, on the time-skipping server with the rail's
// activities scripted (test/workflows/support/fake-rail-activities.ts). A batch terminated by the
// server's history limit could not be restarted: its money stayed in transit and the merchant's live
// balance was skipped forever.

const DAY_MS = 24 * 3600_000;

let h: SettlementTestEnv;
beforeAll(async () => {
  h = await startSettlementTestEnv();
});
afterAll(async () => {
  await h?.close();
});

const details = async (id: string) => (await h.env.client.workflow.getHandle(id).query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;

test('PENDING for 10 days: the batch continues as new, its money in transit, one submission; a callback to the latest run ends it paid', async () => {
  const merchantId = h.merchant(40_000, 'live');
  const startedMs = await h.env.currentTimeMs();
  let paid = false;
  h.rail.partner({ kind: 'accepted' }, []).statusBy(() => (paid ? { status: 'succeeded', financialTransactionId: 'ft-stl-10d' } : { status: 'pending' }));
  const handle = await h.start({ merchantId, environment: 'live' });
  const firstRunId = (await handle.describe()).runId;
  await h.env.sleep(10 * DAY_MS);

  const latest = await h.env.client.workflow.getHandle(handle.workflowId).describe();
  expect(latest.status.name).toBe('RUNNING');
  expect(latest.typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
  expect(h.store.transitionsOf(handle.workflowId)).toEqual([]);
  expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 0, inTransit: 40_000 });
  const runs = await runsOf(h.env.client, handle.workflowId, firstRunId);
  expect(runs.length).toBeGreaterThan(1);
  for (const run of runs) expect(run.events).toBeLessThan(PARTNER_WAIT_HISTORY_EVENTS + 50);
  const submits = h.rail.timeline.filter((c) => c.paymentId === handle.workflowId && c.kind === 'submit');
  expect(submits).toHaveLength(1);
  expect(submits[0].atMs).toBeLessThan(startedMs + LIVE_PAYOUT_DEADLINE_MS);

  paid = true;
  const signalledMs = await h.env.currentTimeMs();
  await h.env.client.workflow.getHandle(handle.workflowId).signal(PARTNER_CALLBACK_SIGNAL);
  expect(await h.env.client.workflow.getHandle(handle.workflowId).result()).toMatchObject({ status: 'paid' });
  const transitions = h.store.transitionsOf(handle.workflowId);
  expect(transitions.map((t) => t.to)).toEqual(['paid']);
  expect(Date.parse(transitions[0].at) - signalledMs).toBeLessThan(5 * 60_000);
  expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 0, inTransit: 0 });
});

test('unknown after the partner acknowledged the transfer is not final: the batch stays pending, in transit and flagged past its window, then paid', async () => {
  // Before the patch this batch failed (partner_unavailable) after 24 h, its money back to available
  // for the next run to pay again; with the status gate, the run failed instead, the money stuck.
  const merchantId = h.merchant(9_000, 'live');
  const startedMs = await h.env.currentTimeMs();
  const paidAtMs = startedMs + 1.5 * DAY_MS;
  h.rail
    .partner({ kind: 'accepted' }, [])
    .statusBy((now) => (now < startedMs + 60_000 ? { status: 'pending' } : now < paidAtMs ? { status: 'unknown' } : { status: 'succeeded', financialTransactionId: 'ft-stl-ack' }));
  const handle = await h.start({ merchantId, environment: 'live' });
  await h.env.sleep(LIVE_PAYOUT_DEADLINE_MS + 3600_000);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect(h.store.transitionsOf(handle.workflowId)).toEqual([]);
  expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 0, inTransit: 9_000 });
  expect((await h.searchAttributes(handle.workflowId)).get(SA.NeedsAttention)).toBe(true);
  expect(await details(handle.workflowId)).toContain('which it acknowledged before: that is not final');
  const submits = h.rail.timeline.filter((c) => c.paymentId === handle.workflowId && c.kind === 'submit');
  expect(Math.max(...submits.map((c) => c.scheduledMs))).toBeLessThanOrEqual(startedMs + LIVE_PAYOUT_DEADLINE_MS);

  expect(await h.env.client.workflow.getHandle(handle.workflowId).result()).toMatchObject({ status: 'paid' });
  const transitions = h.store.transitionsOf(handle.workflowId);
  expect(transitions.map((t) => t.to)).toEqual(['paid']);
  expect(Date.parse(transitions[0].at)).toBeGreaterThanOrEqual(paidAtMs);
});

test('a restarted batch whose transfer never reached the partner: unknown, sent again (the same reference, a repeat), acknowledged: not flagged as a partner that lost track; then paid', async () => {
  const merchantId = h.merchant(7_000, 'live');
  const nowMs = await h.env.currentTimeMs();
  // As payments restart stl_ resumes it (src/services/restart-settlement.ts): begun an hour ago, never acknowledged.
  const resume = { startedMs: nowMs - 3600_000, submitUntilMs: nowMs - 3600_000 + LIVE_PAYOUT_DEADLINE_MS, acknowledged: false, poll: 0, flagged: false, flaggedLate: false, flaggedUnknown: false, wake: true, runs: 0 };
  h.rail.partner({ kind: 'accepted' }, [{ status: 'unknown' }, { status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-stl-resent' }]);
  const settlementId = newId('settlement');
  const input: SettlementStart = { settlementId, merchantId, environment: 'live', currency: 'GHS', outcome: null, runId: null, resume };
  const handle = await h.env.client.workflow.start(SETTLEMENT_WORKFLOW_TYPE, { workflowId: settlementId, taskQueue: taskQueueFor(h.taskQueue, 'live'), args: [input], typedSearchAttributes: settlementStartSearchAttributePairs(input) });
  await waitFor(async () => h.rail.submits.some((s) => s.paymentId === settlementId));
  expect(h.rail.submits.filter((s) => s.paymentId === settlementId)).toEqual([{ paymentId: settlementId, product: 'disbursement', resubmit: true }]);
  // Before the patch the resubmission's own acknowledgement raised "which it acknowledged before".
  const details = async () => (await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;
  await waitFor(async () => h.rail.statusCalls.filter((c) => c.paymentId === settlementId).length >= 1);
  expect(await details()).not.toContain('acknowledged before');
  expect(await handle.result()).toMatchObject({ status: 'paid' });
  expect((await h.searchAttributes(settlementId)).get(SA.NeedsAttention)).not.toBe(true);
  expect(h.rail.submits.filter((s) => s.paymentId === settlementId)).toHaveLength(1);
});
