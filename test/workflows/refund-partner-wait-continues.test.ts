import { LIVE_PAYOUT_DEADLINE_MS, PARTNER_CALLBACK_SIGNAL } from '../../src/domain/live-rail';
import { PARTNER_WAIT_HISTORY_EVENTS } from '../../src/domain/partner-wait';
import { startRefundTestEnv, type RefundTestEnv } from './support/refund-env';
import { runsOf } from './support/runs-of';

// Issue 45: a live refund the partner keeps PENDING waits as a payout does (workflows/refund-rail.ts,
// followPartnerLongWait): the run continues as new when its history is long, each run short, the
// refund's reservation kept (nothing written), one submission inside its window; the partner's
// callback to the workflow id wakes the latest run, which ends it on SUCCESSFUL.

const DAY_MS = 24 * 3600_000;
const WAIT_DAYS = 12;

let h: RefundTestEnv;
beforeAll(async () => {
  h = await startRefundTestEnv();
});
afterAll(async () => {
  await h?.close();
});

test(`PENDING for ${WAIT_DAYS} days: the refund's wait continues as new, nothing is written or resubmitted, and the partner's later SUCCESSFUL ends it`, async () => {
  const record = await h.refund({ environment: 'live' });
  const startedMs = await h.env.currentTimeMs();
  let paid = false;
  h.rail.partner({ kind: 'accepted' }, []).statusBy(() => (paid ? { status: 'succeeded', financialTransactionId: 'ft-refund-late' } : { status: 'pending' }));
  await h.start(record);
  const firstRunId = (await h.env.client.workflow.getHandle(record.id).describe()).runId;

  await h.env.sleep(WAIT_DAYS * DAY_MS);
  const latest = await h.env.client.workflow.getHandle(record.id).describe();
  expect(latest.status.name).toBe('RUNNING');
  expect(latest.runId).not.toBe(firstRunId);
  expect(h.store.transitionsOf(record.id)).toEqual([]);
  const runs = await runsOf(h.env.client, record.id, firstRunId);
  expect(runs.length).toBeGreaterThan(1);
  for (const run of runs) expect(run.events).toBeLessThan(PARTNER_WAIT_HISTORY_EVENTS + 50);
  const submits = h.rail.timeline.filter((c) => c.paymentId === record.id && c.kind === 'submit');
  expect(submits).toHaveLength(1);
  expect(submits[0].atMs).toBeLessThan(startedMs + LIVE_PAYOUT_DEADLINE_MS);

  paid = true;
  await h.env.client.workflow.getHandle(record.id).signal(PARTNER_CALLBACK_SIGNAL);
  const result = await h.env.client.workflow.getHandle(record.id).result();
  expect(result).toMatchObject({ status: 'succeeded' });
  expect(h.store.transitionsOf(record.id).map((t) => t.to)).toEqual(['succeeded']);
});
