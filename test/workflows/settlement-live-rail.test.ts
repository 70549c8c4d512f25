import { LIVE_PAYOUT_DEADLINE_MS, PARTNER_NO_ANSWER_ATTENTION_MS } from '../../src/domain/live-rail';
import { SA } from '../../src/domain/search-attributes';
import { startSettlementTestEnv, type SettlementTestEnv } from './support/settlement-env';

// A live settlement batch on the partner rail (workflows/settlement.ts, workflows/partner-answer.ts),
// on the time-skipping server with the rail's activities scripted (test/workflows/support/fake-rail-activities.ts).

let h: SettlementTestEnv;
beforeAll(async () => {
  h = await startSettlementTestEnv();
});
afterAll(async () => {
  await h?.close();
});

test('no final answer for days: the batch stays pending, its money in transit, NeedsAttention; the partner pays it after 30 h: paid (finding 2)', async () => {
  // It used to fail with `timeout` at 24 h and return its money to available, for the next run to
  // sweep and pay again.
  const merchantId = h.merchant(50_000, 'live');
  const startedMs = await h.env.currentTimeMs();
  const paidAtMs = startedMs + LIVE_PAYOUT_DEADLINE_MS + 6 * 3600_000;
  h.rail.partner({ kind: 'accepted' }, []).statusBy((now) => (now >= paidAtMs ? { status: 'succeeded', financialTransactionId: 'ft-stl' } : { status: 'pending' }));
  const handle = await h.start({ merchantId, environment: 'live' });
  await h.env.sleep(PARTNER_NO_ANSWER_ATTENTION_MS + 2 * 60_000);
  expect((await h.searchAttributes(handle.workflowId)).get(SA.NeedsAttention)).toBe(true);
  await h.env.sleep(LIVE_PAYOUT_DEADLINE_MS + 60 * 60_000);
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect(h.store.transitionsOf(handle.workflowId)).toEqual([]);
  expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 0, inTransit: 50_000 });
  const result = await handle.result();
  expect(result).toMatchObject({ status: 'paid' });
  expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 0, inTransit: 0 });
});

test("the partner's FAILED fails the batch and returns the money (the only way it goes back)", async () => {
  const merchantId = h.merchant(7_000, 'live');
  h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'failed', reason: 'PAYEE_NOT_FOUND', failureClass: 'invalid_recipient' }]);
  const handle = await h.start({ merchantId, environment: 'live' });
  await h.env.sleep(60_000);
  expect(h.store.transitionsOf(handle.workflowId).map((t) => [t.to, t.failureClass])).toEqual([['failed', 'invalid_recipient']]);
  expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 7_000, inTransit: 0 });
});

test('issue 46: the transfer never reached the first partner of the batch\'s route: the gate moves it, the next partner pays it (paid once)', async () => {
  const merchantId = h.merchant(9_000, 'live');
  h.rail
    .partner({ kind: 'not_reached', reason: 'ECONNREFUSED' }, [])
    .thenFailover({ moved: true, partner: 'momo', from: 'aggregator', attempt: 2, cause: 'not_reached' }, { kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'ft-stl-fo' }]);
  const handle = await h.start({ merchantId, environment: 'live' });
  expect(await handle.result()).toMatchObject({ status: 'paid' });
  expect(h.rail.failovers.filter((f) => f.paymentId === handle.workflowId)).toHaveLength(1);
  expect(h.rail.submits.filter((s) => s.paymentId === handle.workflowId).map((s) => s.failover ?? false)).toEqual([true, true]);
  expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 0, inTransit: 0 });
});
