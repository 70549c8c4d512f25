import { LIVE_PAYOUT_DEADLINE_MS, PARTNER_CALLBACK_SIGNAL } from '../../../src/domain/live-rail';
import { PARTNER_LONG_WAIT_POLL_MS, PARTNER_WAIT_HISTORY_EVENTS } from '../../../src/domain/partner-wait';
import { SA } from '../../../src/domain/search-attributes';
import { retryStepUpdate } from '../../../workflows/messages';
import { startPayoutTestEnv, type PayoutTestEnv } from './payout-env';
import { runsOf } from './runs-of';

/**
 * The test of a live payout's long partner wait, for WAIT_DAYS days: 20 in the fast tier
 * (test/workflows/payout-partner-wait-continues.test.ts), 100 in the system tier
 * (test/system/payout-wait-100-days.test.ts: past the server's history limit of about day 91 before the
 * patch; about 50 s of CPU more, each run stopping at the same history threshold).
 */
// Issue 43 (Medium: no continue-as-new in partner waits): a live payout's wait for the partner, on the time-skipping server with the rail's activities
// scripted (test/workflows/support/fake-rail-activities.ts). Before the patch
// partner-wait-continues-as-new, the run of a payout the partner kept PENDING grew by about 528
// events a day and was terminated by the server at about day 91.

const DAY_MS = 24 * 3600_000;

export function describeLongPayoutWait(WAIT_DAYS: number): void {
let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});


const details = async (payoutId: string) => (await h.handle(payoutId).query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;

  test(`PENDING for ${WAIT_DAYS} days (past the week after which polls slow to two-hourly): the wait continues as new (each run short), keeps its reservation and submit window, and a callback to the latest run ends it on SUCCESSFUL`, async () => {
    const record = await h.payout({ environment: 'live' });
    const startedMs = await h.env.currentTimeMs();
    let paid = false;
    h.rail.partner({ kind: 'accepted' }, []).statusBy(() => (paid ? { status: 'succeeded', financialTransactionId: `ft-day-${WAIT_DAYS}` } : { status: 'pending' }));
    const handle = await h.start(record);

    await h.env.sleep(WAIT_DAYS * DAY_MS);
    const latest = await h.handle(record.id).describe();
    expect(latest.status.name).toBe('RUNNING');
    expect(latest.runId).not.toBe(handle.firstExecutionRunId);
    // Nothing written: the reservation is kept (no finish), the payout flagged all along.
    expect(h.store.transitionsOf(record.id)).toEqual([]);
    expect(latest.typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
    expect(latest.typedSearchAttributes.get(SA.MerchantId)).toBe(record.merchantId);
    expect(await details(record.id)).toMatch(/continued as new|no final answer from the partner/);

    const runs = await runsOf(h.env.client, record.id, handle.firstExecutionRunId);
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.at(-1)!.runId).toBe(latest.runId);
    // Each run stops at the next poll past the threshold: a poll adds about a dozen events.
    for (const run of runs) expect(run.events).toBeLessThan(PARTNER_WAIT_HISTORY_EVENTS + 50);
    // Each run begins again from the database; only the first one submitted, inside its window.
    expect(h.store.calls.filter((c) => c.activity === 'beginPayout' && c.payoutId === record.id)).toHaveLength(runs.length);
    const submits = h.rail.timeline.filter((c) => c.paymentId === record.id && c.kind === 'submit');
    expect(submits).toHaveLength(1);
    expect(submits[0].atMs).toBeLessThan(startedMs + LIVE_PAYOUT_DEADLINE_MS);
    // Still asking the partner near the end (polls every two hours after a week).
    const lastStatus = Math.max(...h.rail.timeline.filter((c) => c.paymentId === record.id && c.kind === 'status').map((c) => c.atMs));
    expect(lastStatus).toBeGreaterThan(startedMs + WAIT_DAYS * DAY_MS - PARTNER_LONG_WAIT_POLL_MS - 60_000);

    // An operator's update by workflow id reaches the latest run (its validator answers: nothing gave up, nothing to retry).
    const refused = await h
      .handle(record.id)
      .executeUpdate(retryStepUpdate, { args: [{ operator: 'ops@example.com', reason: `day ${WAIT_DAYS}: retry` }] })
      .then(
        () => undefined,
        (error: unknown) => error as { cause?: { message?: string } },
      );
    expect(refused?.cause?.message).toContain(record.id);
    expect(h.store.transitionsOf(record.id)).toEqual([]);

    // The partner's callback goes to the workflow id: the latest run wakes and asks at once.
    paid = true;
    const signalledMs = await h.env.currentTimeMs();
    await h.handle(record.id).signal(PARTNER_CALLBACK_SIGNAL);
    const result = await h.handle(record.id).result();
    expect(result).toMatchObject({ status: 'succeeded' });
    const transitions = h.store.transitionsOf(record.id);
    expect(transitions.map(({ to }) => to)).toEqual(['succeeded']);
    expect(Date.parse(transitions[0].at) - signalledMs).toBeLessThan(5 * 60_000);
  });
}
