import type { WorkflowHandle } from '@temporalio/client';
import { CHARGE_LIFETIME_MS, COMPLETION_DELAY_MS } from '../../src/domain/sandbox-outcome';
import { HOSTED_CHECKOUT_PATCH } from '../../src/domain/hosted-checkout';
import { CHARGE_PATCHES_AS_ONE_PATCH, CHARGE_PATCHES_IN_ONE, RAIL_PATCHES_AT_START_PATCH } from '../../workflows/charge-patches';
import { advanceSignal, checkoutDecisionSignal } from '../../workflows/messages';
import { waitingTimer } from './support/wait-for';
import { startChargeTestEnv, type ChargeTestEnv } from './support/charge-env';
import { expectAimedAt, timelineOf } from './support/timeline';

// Hosted checkout in chargeWorkflow (workflows/charge-checkout.ts) on the time-skipping test server:
// a sandbox card or bank charge without sandbox_outcome waits for `checkoutDecision` against its
// expiry timer. Time is skipped only while the test awaits a result, so the charge sits on its
// timer while the test queries and signals.

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

async function waiting(channel: 'card' | 'bank') {
  const draft = await h.draft({ channel });
  expect(draft).toMatchObject({ status: 'awaiting_action', action: { type: channel === 'card' ? '3ds_redirect' : 'hosted_checkout' } });
  const handle = await h.start(draft);
  const timer = await waitingTimer(handle);
  return { draft, handle, timer };
}

/** The patch markers of a run's history, as text (the marker's payloads decoded). */
async function markers(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .flatMap((e) => Object.values(e.markerRecordedEventAttributes?.details ?? {}))
    .flatMap((p) => p.payloads ?? [])
    .map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'))
    .join('\n');
}

test('card: waits on the expiry timer for the customer; approved, it succeeds long before expiry', async () => {
  const { draft, handle, timer } = await waiting('card');
  expect(timer).toEqual({ summary: 'hosted checkout: waiting for the customer until expires_at', firesAt: expect.any(String) });
  expect(Date.parse(timer.firesAt!)).toBeGreaterThanOrEqual(Date.parse(draft.expiresAt) - 1000);
  await handle.signal(checkoutDecisionSignal, { decision: 'approved' });
  expect(await h.settle(draft.id)).toMatchObject({ status: 'succeeded', failureClass: null });
  const transitions = h.store.transitionsOf(draft.id);
  expect([...new Set(transitions.map((t) => t.to))]).toEqual(['succeeded']);
  expect(Date.parse(transitions[0].at) - Date.parse(draft.createdAt)).toBeLessThan(CHARGE_LIFETIME_MS);
  const timeline = timelineOf(await handle.fetchHistory());
  expect(timeline.timers).toEqual([expect.objectContaining({ firedAt: null })]);
  expect(timeline.eventTypes).toContain('TIMER_CANCELED');
  // Issue 48: the run's one patch marker stands for hosted-checkout (workflows/charge-patches.ts).
  expect(await markers(handle)).toContain(CHARGE_PATCHES_AS_ONE_PATCH);
  expect(CHARGE_PATCHES_IN_ONE.has(HOSTED_CHECKOUT_PATCH)).toBe(true);
});

test('bank: declined, it fails with declined; a second decision is ignored', async () => {
  const { draft, handle } = await waiting('bank');
  await handle.signal(checkoutDecisionSignal, { decision: 'declined' });
  await handle.signal(checkoutDecisionSignal, { decision: 'approved' });
  expect(await h.settle(draft.id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
  // A transition may be run twice (a local activity is at least once); it is only ever to failed.
  expect([...new Set(h.store.transitionsOf(draft.id).map((t) => t.to))]).toEqual(['failed']);
  expect(h.store.charges.get(draft.id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
});

test('no decision: the charge expires at expires_at; a malformed decision changes nothing', async () => {
  const { draft, handle } = await waiting('card');
  await handle.signal(checkoutDecisionSignal, { decision: 'maybe' } as never);
  expect(await h.settle(draft.id)).toMatchObject({ status: 'expired', failureClass: null });
  const transitions = h.store.transitionsOf(draft.id);
  expect([...new Set(transitions.map((t) => t.to))]).toEqual(['expired']);
  expect(Date.parse(transitions[0].at)).toBeGreaterThanOrEqual(Date.parse(draft.expiresAt));
  expect(timelineOf(await handle.fetchHistory()).eventTypes).toContain('TIMER_FIRED');
});

test('a charge whose merchant set expires_at a day away waits for its customer that long, not 15 minutes, then expires (issue 48)', async () => {
  const expiresAt = new Date((await h.env.currentTimeMs()) + 24 * 3_600_000).toISOString();
  const draft = await h.draft({ channel: 'bank', expiresAt });
  expect(draft.expiresAt).toBe(expiresAt);
  const handle = await h.start(draft);
  const timer = await waitingTimer(handle);
  expect(Date.parse(timer.firesAt!)).toBeGreaterThanOrEqual(Date.parse(expiresAt) - 1000);
  expect(await h.settle(draft.id)).toMatchObject({ status: 'expired', failureClass: null });
  expect(Date.parse(h.store.transitionsOf(draft.id)[0].at)).toBeGreaterThanOrEqual(Date.parse(expiresAt));
});

test('sandbox advance fires the expiry timer: the charge expires at once', async () => {
  const { draft, handle } = await waiting('bank');
  await handle.signal(advanceSignal);
  expect(await h.settle(draft.id)).toMatchObject({ status: 'expired' });
  expect(Date.parse(h.store.transitionsOf(draft.id)[0].at)).toBeLessThan(Date.parse(draft.expiresAt));
});

test('card with an explicit sandbox_outcome: no checkout, the simulator decides as before', async () => {
  const draft = await h.draft({ channel: 'card', metadata: { sandbox_outcome: 'succeed' } });
  expect(draft).toMatchObject({ status: 'pending', action: null });
  const handle = await h.start(draft);
  expect((await waitingTimer(handle)).summary).toBe('sandbox completion: the customer approves');
  expect(await h.settle(draft.id)).toMatchObject({ status: 'succeeded' });
  // No checkout wait: the run's one timer is the simulator's. (Its history carries the hosted-checkout
  // marker all the same: a sandbox run decides its rail's patches at start, before it knows the
  // charge's channel: workflows/charge-patches.ts, issue 32.)
  const timers = timelineOf(await handle.fetchHistory()).timers;
  expect(timers).toHaveLength(1);
  expectAimedAt(timers[0], Date.parse(draft.createdAt) + COMPLETION_DELAY_MS); // the simulator's 3 s from creation (issue 34)
  expect(await markers(handle)).toContain(CHARGE_PATCHES_AS_ONE_PATCH);
  expect(CHARGE_PATCHES_IN_ONE.has(RAIL_PATCHES_AT_START_PATCH)).toBe(true);
});
