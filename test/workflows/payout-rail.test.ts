import { FAILURE_CLASSES } from '../../src/domain/failure-classes';
import { SA } from '../../src/domain/search-attributes';
import { COMPLETION_DELAY_MS, PENDING_TIMEOUT_MS } from '../../src/domain/sandbox-outcome';
import { SANDBOX_LATE_ANSWER_MS, SANDBOX_REVERSAL_DELAY_MS } from '../../workflows/payout-rail';
import { startPayoutTestEnv, type PayoutOptions, type PayoutTestEnv } from './support/payout-env';
import { timelineOf } from './support/timeline';
import { waitFor, signalsAnswered } from './support/wait-for';

// payoutWorkflow on the time-skipping test server, activities in memory (FakePayoutStore), started
// as the API starts it (the payout written, then `{ payoutId }`). Durations come from the history.

let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});

async function run(options: PayoutOptions) {
  const record = await h.payout(options);
  const handle = await h.start(record);
  const result = await handle.result();
  const timeline = timelineOf(await handle.fetchHistory());
  const transitions = h.store.transitionsOf(record.id).map(({ to, failureClass }) => (failureClass ? { to, failureClass } : { to }));
  return { record, result, timeline, transitions, sa: await h.searchAttributes(record.id) };
}

describe('sandbox rail (metadata.sandbox_outcome)', () => {
  test.each([[null], ['succeed'], ['approve_later']])('%s: succeeded after one 3 s timer', async (outcome) => {
    const r = await run({ sandboxOutcome: outcome });
    expect(r.transitions).toEqual([{ to: 'succeeded' }]);
    expect(r.timeline.timers.map((t) => t.durationMs)).toEqual([COMPLETION_DELAY_MS]);
    expect(r.result).toMatchObject({ id: r.record.id, status: 'succeeded', failureClass: null, review: null });
    expect([r.sa.get(SA.PaymentStatus), r.sa.get(SA.FailureClass), r.sa.get(SA.NeedsAttention)]).toEqual(['succeeded', undefined, false]);
  });

  test.each(FAILURE_CLASSES.map((c) => [c]))('%s: failed at once with that failure_class, no timer', async (outcome) => {
    const r = await run({ sandboxOutcome: outcome });
    expect(r.transitions).toEqual([{ to: 'failed', failureClass: outcome }]);
    expect(r.timeline.timers).toEqual([]);
    expect(r.result).toMatchObject({ status: 'failed', failureClass: outcome });
    expect([r.sa.get(SA.PaymentStatus), r.sa.get(SA.FailureClass)]).toEqual(['failed', outcome]);
  });

  test('pending: ten minutes, then failed with timeout', async () => {
    const r = await run({ sandboxOutcome: 'pending' });
    expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'timeout' }]);
    expect(r.timeline.timers.map((t) => t.durationMs)).toEqual([PENDING_TIMEOUT_MS]);
    expect(r.timeline.timers[0].firedAt).not.toBeNull();
  });

  test('indeterminate models the live promise: pending, reserved and NeedsAttention with no answer (never failed on a deadline), then the late answer pays it', async () => {
    const record = await h.payout({ sandboxOutcome: 'indeterminate' });
    const handle = await h.start(record);
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    expect((await h.searchAttributes(record.id)).get(SA.NeedsAttention)).toBe(true);
    expect(h.store.transitionsOf(record.id)).toEqual([]);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'succeeded' });
    expect(timelineOf(await handle.fetchHistory()).timers.map((t) => t.durationMs)).toEqual([SANDBOX_LATE_ANSWER_MS]);
    expect((await h.searchAttributes(record.id)).get(SA.NeedsAttention)).toBe(false);
  });

  test('reverse: succeeded, then reversed about 3 s later', async () => {
    const r = await run({ sandboxOutcome: 'reverse' });
    expect(r.transitions).toEqual([{ to: 'succeeded' }, { to: 'reversed' }]);
    expect(r.timeline.timers.map((t) => t.durationMs)).toEqual([COMPLETION_DELAY_MS, SANDBOX_REVERSAL_DELAY_MS]);
    expect(r.result).toMatchObject({ status: 'reversed' });
    expect(r.sa.get(SA.PaymentStatus)).toBe('reversed');
  });

  test('live (no live rail): failed at once with partner_unavailable, whatever the outcome', async () => {
    for (const outcome of [null, 'pending', 'reverse']) {
      const r = await run({ environment: 'live', sandboxOutcome: outcome });
      expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'partner_unavailable' }]);
      expect(r.timeline.timers).toEqual([]);
    }
  });
});

describe('advance signal (sandbox)', () => {
  test('pending outcome: advance wins the race with the ten-minute timer; the history shows the signal and the timer cancelled', async () => {
    const record = await h.payout({ sandboxOutcome: 'pending' });
    const handle = await h.start(record);
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    expect(await handle.query('nextTimer')).toEqual({ summary: 'sandbox pending outcome: ten minutes, then timeout', firesAt: expect.any(String) });
    await handle.signal('advance');
    await signalsAnswered(handle);
    expect(await handle.result()).toMatchObject({ status: 'failed', failureClass: 'timeout' });
    const { eventTypes, timers } = timelineOf(await handle.fetchHistory());
    expect(eventTypes).toEqual(expect.arrayContaining(['WORKFLOW_EXECUTION_SIGNALED', 'TIMER_CANCELED']));
    expect(eventTypes).not.toContain('TIMER_FIRED');
    expect(timers).toHaveLength(1);
    expect(eventTypes.indexOf('WORKFLOW_EXECUTION_SIGNALED')).toBeLessThan(eventTypes.indexOf('TIMER_CANCELED'));
  });

  test('nextTimer is null once nothing waits, and an advance then changes nothing', async () => {
    const r = await run({ sandboxOutcome: 'declined' });
    expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'declined' }]);
    await expect(h.handle(r.record.id).query('nextTimer')).resolves.toBeNull();
  });
});
