import { startPayoutTestEnv, type PayoutTestEnv } from './support/payout-env';

// Issue 46: a live payout fails over to the next partner of its route exactly when its first
// attempt provably moved no money (workflows/partner-failover.ts, src/domain/rail-failover.ts), for
// each kind of first answer. The rail's activities are scripted (test/workflows/support/fake-rail-activities.ts):
// the failover gate's own checks in the database are test/integration/rail-failover-gate.test.ts's.

let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});

const moved = { moved: true as const, partner: 'aggregator' as const, from: 'momo' as const, attempt: 2, cause: 'not_reached' as const };

async function runLive() {
  const record = await h.payout({ environment: 'live' });
  const handle = await h.start(record);
  const result = await handle.result();
  return {
    record,
    result,
    transitions: h.store.transitionsOf(record.id).map(({ to, failureClass }) => (failureClass ? { to, failureClass } : { to })),
    submits: h.rail.submits.filter((s) => s.paymentId === record.id),
    failovers: h.rail.failovers.filter((s) => s.paymentId === record.id),
    history: await handle.fetchHistory(),
  };
}

/** The summaries the Temporal UI shows for the run's activities, in order. */
function summaries(history: Awaited<ReturnType<typeof runLive>>['history']): string[] {
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => {
      const payload = e.userMetadata?.summary;
      return payload?.data ? JSON.parse(Buffer.from(payload.data).toString('utf8')) : '';
    });
}

test('not reached: the gate moves it to the next partner, whose attempt is followed to its SUCCESSFUL; the history names both', async () => {
  h.rail.partner({ kind: 'not_reached', reason: 'POST /disbursement/v1_0/transfer: ECONNREFUSED' }, []).thenFailover(moved, { kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'ft-agg' }]);
  const r = await runLive();
  expect(r.transitions).toEqual([{ to: 'succeeded' }]);
  expect(r.failovers).toHaveLength(1);
  expect(r.submits.map((s) => s.failover ?? false)).toEqual([true, true]);
  const said = summaries(r.history);
  expect(said).toContainEqual('failover gate: attempt 1 never reached the partner');
  expect(said).toContainEqual('partner transfer: submit, attempt 2 via aggregator (same reference on every retry)');
});

test('refused with a reason marked retry-elsewhere: the gate moves it; the next partner pays', async () => {
  h.rail
    .partner({ kind: 'refused', reason: 'COULD_NOT_PERFORM_TRANSACTION', failureClass: 'partner_unavailable', retryElsewhere: true }, [])
    .thenFailover({ ...moved, cause: 'refused' }, { kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-agg-2' }]);
  const r = await runLive();
  expect(r.transitions).toEqual([{ to: 'succeeded' }]);
  expect(r.failovers).toHaveLength(1);
  expect(summaries(r.history)).toContainEqual('failover gate: attempt 1 was refused COULD_NOT_PERFORM_TRANSACTION (retry elsewhere)');
});

test('refused with a final reason: no failover, the payout fails with the partner\'s reason', async () => {
  h.rail.partner({ kind: 'refused', reason: 'PAYEE_NOT_FOUND', failureClass: 'invalid_recipient' }, []).thenFailover(moved);
  const r = await runLive();
  expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'invalid_recipient' }]);
  expect(r.failovers).toEqual([]);
  expect(r.submits).toHaveLength(1);
});

test('accepted: no failover, whatever the partner says next (FAILED fails it)', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'COULD_NOT_PERFORM_TRANSACTION', failureClass: 'partner_unavailable' }]).thenFailover(moved);
  const r = await runLive();
  expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'partner_unavailable' }]);
  expect(r.failovers).toEqual([]);
});

test('PENDING, then unknown after it: no failover; only that partner\'s word ends it', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'unknown' }, { status: 'unknown' }, { status: 'succeeded', financialTransactionId: 'ft-momo' }]).thenFailover(moved);
  const r = await runLive();
  expect(r.transitions).toEqual([{ to: 'succeeded' }]);
  expect(r.failovers).toEqual([]);
});

test('a timeout after sending (no answer for an hour): no failover; the same partner is asked until it answers', async () => {
  {
    const startedMs = await h.env.currentTimeMs();
    h.rail.partner({ kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'ft-after-timeouts' }]).submitFailsUntil(startedMs + 3600_000).thenFailover(moved);
    const r = await runLive();
    expect(r.transitions).toEqual([{ to: 'succeeded' }]);
    expect(r.failovers).toEqual([]);
    expect(r.submits.length).toBeGreaterThan(1);
    expect(r.submits.every((s) => s.failover === true)).toBe(true);
  }
});

test('not reached and the gate says no (no other partner admits it): submitted again the way it always was, without failover', async () => {
  h.rail.partner({ kind: 'not_reached', reason: 'ECONNREFUSED' }, [{ status: 'succeeded', financialTransactionId: 'ft-same' }]);
  const r = await runLive();
  expect(r.failovers).toHaveLength(1);
  expect(r.submits.map((s) => s.failover ?? false)).toEqual([true, false]);
  expect(r.transitions).toEqual([{ to: 'succeeded' }]);
});
