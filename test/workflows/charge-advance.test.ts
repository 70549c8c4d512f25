import { QueryNotRegisteredError } from '@temporalio/client';
import { COMPLETION_DELAY_MS, PENDING_TIMEOUT_MS } from '../../src/domain/sandbox-outcome';
import { advanceSignal, nextTimerQuery } from '../../workflows/messages';
import { waitingTimer } from './support/wait-for';
import { startChargeTestEnv, type ChargeTestEnv, type DraftOptions } from './support/charge-env';
import { expectAimedAt, timelineOf } from './support/timeline';

// The sandbox `advance` signal (POST /v1/sandbox/advance/{id}) races each timer of chargeWorkflow on
// the time-skipping test server: the signal wins (the timer is cancelled, the charge goes on as if it
// had fired, long before it was due), and `nextTimer` names the timer waiting. Time is skipped only
// while the test awaits a result, so the charge sits on its timer while the test queries and signals.

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

async function advanced(options: DraftOptions) {
  const draft = await h.draft(options);
  const handle = await h.start(draft);
  const timer = await waitingTimer(handle);
  await handle.signal(advanceSignal);
  const result = await h.settle(draft.id);
  const history = await handle.fetchHistory();
  const timeline = timelineOf(history);
  const transitions = h.store.transitionsOf(draft.id);
  // After the run: no timer waits any more.
  const after = await handle.query(nextTimerQuery);
  return { draft, timer, result, timeline, transitions, after, createdAt: Date.parse(draft.createdAt) };
}

/** The history shows the signal, then the timer cancelled (never fired), and the patch marker. */
function expectSignalWon(r: Awaited<ReturnType<typeof advanced>>, durationMs: number) {
  expect(r.timeline.timers).toHaveLength(1);
  expect(r.timeline.timers[0]).toMatchObject({ firedAt: null });
  // Aimed at creation + the delay (issue 34), i.e. a little less than the delay from the run's start.
  expectAimedAt(r.timeline.timers[0], r.createdAt + durationMs);
  const types = r.timeline.eventTypes;
  expect(types).toContain('MARKER_RECORDED');
  expect(types.indexOf('WORKFLOW_EXECUTION_SIGNALED')).toBeGreaterThan(types.indexOf('TIMER_STARTED'));
  expect(types.indexOf('TIMER_CANCELED')).toBeGreaterThan(types.indexOf('WORKFLOW_EXECUTION_SIGNALED'));
  expect(types).not.toContain('TIMER_FIRED');
  // Far earlier than the timer was due, in workflow time.
  expect(Date.parse(r.transitions[0].at) - r.createdAt).toBeLessThan(durationMs);
  expect(r.after).toBeNull();
}

test('sandbox completion (3 s): advance wins, the charge succeeds', async () => {
  const r = await advanced({});
  expect(r.timer).toEqual({ summary: 'sandbox completion: the customer approves', firesAt: expect.any(String) });
  expect(Date.parse(r.timer.firesAt!) - r.createdAt).toBeGreaterThanOrEqual(COMPLETION_DELAY_MS - 1_000);
  expect(r.transitions).toEqual([expect.objectContaining({ to: 'succeeded', failureClass: null })]);
  expect(r.result.status).toBe('succeeded');
  expectSignalWon(r, COMPLETION_DELAY_MS);
});

test('the ten-minute pending timeout: advance wins, the charge fails with timeout', async () => {
  const r = await advanced({ metadata: { sandbox_outcome: 'pending' } });
  expect(r.timer.summary).toBe('sandbox pending outcome: ten minutes, then timeout');
  expect(r.transitions).toEqual([expect.objectContaining({ to: 'failed', failureClass: 'timeout' })]);
  expectSignalWon(r, PENDING_TIMEOUT_MS);
});

test('expiry of an indeterminate charge: advance wins, the charge expires', async () => {
  const r = await advanced({ metadata: { sandbox_outcome: 'indeterminate' } });
  expect(r.timer.summary).toBe('indeterminate: unresolved until an operator resolves it or expires_at');
  expect(r.transitions).toEqual([expect.objectContaining({ to: 'expired', failureClass: 'timeout' })]);
  expectSignalWon(r, Date.parse(r.draft.expiresAt) - r.createdAt);
  expect(r.timeline.timers[0].durationMs).toBeGreaterThan(14 * 60_000);
});

test('expiry before the rail answers (lifetime shorter than the pending timeout): advance wins, the charge expires', async () => {
  const r = await advanced({ metadata: { sandbox_outcome: 'pending' }, lifetimeMs: 60_000 });
  expect(r.timer.summary).toBe('expires_at reached before the rail answered');
  expect(r.transitions).toEqual([expect.objectContaining({ to: 'expired', failureClass: null })]);
  expectSignalWon(r, Date.parse(r.draft.expiresAt) - r.createdAt);
});

test('without advance the timer wins: it fires when due, and nothing waits afterwards', async () => {
  const draft = await h.draft({});
  const handle = await h.start(draft);
  const result = await h.settle(draft.id);
  expect(result.status).toBe('succeeded');
  const timeline = timelineOf(await handle.fetchHistory());
  expect(timeline.timers).toEqual([expect.objectContaining({ firedAt: expect.any(Number) })]);
  expectAimedAt(timeline.timers[0], Date.parse(draft.createdAt) + COMPLETION_DELAY_MS);
  expect(timeline.eventTypes).not.toContain('TIMER_CANCELED');
  expect(await handle.query(nextTimerQuery)).toBeNull();
});

test('a live charge has no timer to advance (it fails at once)', async () => {
  const draft = await h.draft({ environment: 'live' });
  const handle = await h.start(draft);
  expect((await h.settle(draft.id)).status).toBe('failed');
  expect(await handle.query(nextTimerQuery)).toBeNull();
});

test('a run with no timers registers no nextTimer (the reversal run): the client sees QueryNotRegisteredError, which the endpoint answers as nothing_to_advance', async () => {
  const draft = await h.draft({});
  await h.start(draft);
  await h.settle(draft.id);
  const reversal = await h.startReversal(draft.id, new Date(await h.env.currentTimeMs()).toISOString());
  await reversal.result();
  await expect(reversal.query(nextTimerQuery)).rejects.toBeInstanceOf(QueryNotRegisteredError);
});
