import { LIVE_PAYOUT_DEADLINE_MS, PARTNER_NO_ANSWER_ATTENTION_MS } from '../../src/domain/live-rail';
import { SA } from '../../src/domain/search-attributes';
import { startPayoutTestEnv, type PayoutTestEnv } from './support/payout-env';

// A live payout on the partner rail whose partner takes a day or more (workflows/payout-rail.ts), on
// the time-skipping server with the rail's activities scripted: the waits of payout-live-rail.test.ts
// that skip through days of polls. (The partner's acknowledged `unknown`: payout-live-rail-acked-unknown.test.ts.)

let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});


test('the partner never answers for days: pending and NeedsAttention, the reservation kept, nothing failed; its SUCCESSFUL after 30 h pays it', async () => {
  // Issue 29, finding 1: this payout used to fail with `timeout` at 24 h with its reservation
  // released, though the partner could still pay it (then the recipient was paid twice).
  const record = await h.payout({ environment: 'live' });
  const startedMs = await h.env.currentTimeMs();
  const paidAtMs = startedMs + LIVE_PAYOUT_DEADLINE_MS + 6 * 3600_000;
  h.rail.partner({ kind: 'accepted' }, []).statusBy((now) => (now >= paidAtMs ? { status: 'succeeded', financialTransactionId: 'ft-late' } : { status: 'pending' }));
  const handle = await h.start(record);
  await h.env.sleep(PARTNER_NO_ANSWER_ATTENTION_MS + 2 * 60_000);
  expect((await h.searchAttributes(record.id)).get(SA.NeedsAttention)).toBe(true);
  await h.env.sleep(LIVE_PAYOUT_DEADLINE_MS + 60 * 60_000);
  const waiting = await handle.describe();
  expect(waiting.status.name).toBe('RUNNING');
  expect(h.store.transitionsOf(record.id)).toEqual([]);
  expect((await h.searchAttributes(record.id)).get(SA.NeedsAttention)).toBe(true);
  const result = await handle.result();
  expect(result).toMatchObject({ status: 'succeeded' });
  const transitions = h.store.transitionsOf(record.id);
  expect(transitions.map((t) => t.to)).toEqual(['succeeded']);
  expect(Date.parse(transitions[0].at)).toBeGreaterThanOrEqual(paidAtMs);
  // Never submitted again after the first acceptance, and never after its deadline.
  expect(h.rail.timeline.filter((c) => c.paymentId === record.id && c.kind === 'submit')).toHaveLength(1);
});

test('the partner never received it: `unknown` after the last submission ended (24 h of failed submissions), asked once more, then failed', async () => {
  const record = await h.payout({ environment: 'live' });
  const startedMs = await h.env.currentTimeMs();
  h.rail.partner({ kind: 'accepted' }, [{ status: 'unknown' }]).submitFailsUntil(startedMs + 10 * LIVE_PAYOUT_DEADLINE_MS);
  const handle = await h.start(record);
  const result = await handle.result();
  expect(result).toMatchObject({ status: 'failed', failureClass: 'partner_unavailable' });
  const submits = h.rail.timeline.filter((c) => c.paymentId === record.id && c.kind === 'submit');
  expect(Math.max(...submits.map((c) => c.scheduledMs))).toBeLessThanOrEqual(startedMs + LIVE_PAYOUT_DEADLINE_MS);
  const statuses = h.rail.timeline.filter((c) => c.paymentId === record.id && c.kind === 'status');
  expect(statuses.filter((c) => c.atMs >= startedMs + LIVE_PAYOUT_DEADLINE_MS).length).toBeGreaterThanOrEqual(1);
});
