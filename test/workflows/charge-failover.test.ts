import { startChargeTestEnv, type ChargeTestEnv } from './support/charge-env';

// Issue 46: a live mobile-money charge fails over to the next partner of its route only when its
// request-to-pay provably never reached the partner or was refused with a retry-elsewhere reason:
// never once the partner acknowledged it (the customer may have seen the prompt). Rail scripted
// (test/workflows/support/fake-rail-activities.ts); the gate's own checks: test/integration/rail-failover-gate.test.ts.

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

async function runLive() {
  const draft = await h.draft({ environment: 'live' });
  await h.start(draft);
  const result = await h.settle(draft.id);
  return { draft, result, transitions: h.store.transitionsOf(draft.id).map((t) => t.to), submits: h.rail.submits.filter((s) => s.paymentId === draft.id), failovers: h.rail.failovers.filter((s) => s.paymentId === draft.id) };
}

test('the request-to-pay never reached the first partner: the second takes it, the customer is prompted once, the charge succeeds', async () => {
  h.rail
    .partner({ kind: 'not_reached', reason: 'ECONNREFUSED' }, [])
    .thenFailover({ moved: true, partner: 'aggregator', from: 'momo', attempt: 2, cause: 'not_reached' }, { kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-agg' }]);
  const r = await runLive();
  expect(r.result).toMatchObject({ status: 'succeeded' });
  expect(r.transitions).toEqual(['succeeded']);
  expect(r.failovers).toHaveLength(1);
  expect(r.submits.map((s) => s.failover ?? false)).toEqual([true, true]);
});

test('accepted (the customer may have seen the prompt), then FAILED: no failover; the charge fails as the partner says', async () => {
  h.rail
    .partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'APPROVAL_REJECTED', failureClass: 'declined' }])
    .thenFailover({ moved: true, partner: 'aggregator', from: 'momo', attempt: 2, cause: 'refused' });
  const r = await runLive();
  expect(r.transitions).toEqual(['failed']);
  expect(r.failovers).toEqual([]);
  expect(r.submits).toHaveLength(1);
});

test('refused with a retry-elsewhere reason and no other partner admits it: the refusal is the charge\'s answer', async () => {
  h.rail.partner({ kind: 'refused', reason: 'SERVICE_DECLINING', failureClass: 'partner_unavailable', retryElsewhere: true }, []);
  const r = await runLive();
  expect(r.transitions).toEqual(['failed']);
  expect(r.failovers).toHaveLength(1);
  expect(r.submits).toHaveLength(1);
});
