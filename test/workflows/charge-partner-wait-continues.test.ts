import type { ChargeAttention } from '../../src/domain/charge-attention';
import { PARTNER_WAIT_HISTORY_EVENTS } from '../../src/domain/partner-wait';
import { SA } from '../../src/domain/search-attributes';
import { chargeAttentionQuery, resolveChargeUpdate } from '../../workflows/messages';
import { startChargeTestEnv, type ChargeTestEnv } from './support/charge-env';
import { runsOf } from './support/runs-of';

// Issue 43 (Medium: no continue-as-new in partner waits): a live charge the partner keeps PENDING
// past expires_at stays awaiting_action until its word (patch partner-decides-live-charge), however
// long; its wait continues as new (patch charge-wait-continues-as-new). On the time-skipping server
// with the rail's activities scripted (test/workflows/support/fake-rail-activities.ts).

const DAY_MS = 24 * 3600_000;

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

test('PENDING for 10 days past expires_at: the wait continues as new, the charge stays awaiting_action and flagged; a resolution on the latest run is refused, then agreed after SUCCESSFUL', async () => {
  let paid = false;
  h.rail.partner({ kind: 'accepted' }, []).statusBy(() => (paid ? { status: 'succeeded', financialTransactionId: 'ft-day-10' } : { status: 'pending' }));
  const draft = await h.draft({ environment: 'live' });
  const handle = await h.start(draft);
  const firstRunId = (await handle.describe()).runId;
  const startedMs = await h.env.currentTimeMs();
  await h.env.sleep(10 * DAY_MS);

  const latest = h.env.client.workflow.getHandle(draft.id);
  const described = await latest.describe();
  expect(described.status.name).toBe('RUNNING');
  expect(described.typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
  expect(h.store.transitionsOf(draft.id)).toEqual([]);
  expect(h.store.charges.get(draft.id)).toMatchObject({ status: 'awaiting_action' });
  // The latest run still says why: past expires_at, still PENDING.
  const attention: ChargeAttention = await latest.query(chargeAttentionQuery);
  expect(attention).toMatchObject({ needsAttention: true, step: 'partner rail' });
  expect(attention.reason).toMatch(/expires_at .* passed and the partner still says PENDING/);
  const runs = await runsOf(h.env.client, draft.id, firstRunId);
  expect(runs.length).toBeGreaterThan(1);
  for (const run of runs) expect(run.events).toBeLessThan(PARTNER_WAIT_HISTORY_EVENTS + 50);
  const submits = h.rail.timeline.filter((c) => c.paymentId === draft.id && c.kind === 'submit');
  expect(submits).toHaveLength(1);
  expect(submits[0].atMs).toBeLessThan(Math.max(startedMs, Date.parse(draft.expiresAt)) + 1);

  // An operator's resolution by workflow id reaches the latest run, which asks the partner at once: PENDING refuses it.
  await expect(latest.executeUpdate(resolveChargeUpdate, { args: [{ as: 'succeeded', operator: 'jane', reason: 'statement line 3', evidence: 'ft-day-10' }] })).rejects.toMatchObject({
    cause: { message: expect.stringMatching(/says PENDING: .*refused and nothing changed/) },
  });
  paid = true;
  const resolved = await latest.executeUpdate(resolveChargeUpdate, { args: [{ as: 'succeeded', operator: 'jane', reason: 'statement line 3', evidence: 'line 3: ft-day-10' }] });
  expect(resolved).toMatchObject({ status: 'succeeded', resolution: { agreed: true } });
  await expect(h.settle(draft.id)).resolves.toMatchObject({ status: 'succeeded' });
  expect(h.store.transitionsOf(draft.id).map((t) => t.to)).toEqual(['succeeded']);
});
