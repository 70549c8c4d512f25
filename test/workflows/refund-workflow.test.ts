import { ApplicationFailure } from '@temporalio/common';
import { FAILURE_CLASSES } from '../../src/domain/failure-classes';
import { retryStepUpdate } from '../../workflows/messages';
import { auditLog } from './support/fake-audit';
import { REFUND_INPUT_REFUSED, REFUND_NOT_FOUND } from '../../src/domain/refund';
import { SA } from '../../src/domain/search-attributes';
import { COMPLETION_DELAY_MS, PENDING_TIMEOUT_MS } from '../../src/domain/sandbox-outcome';
import { startRefundTestEnv, type RefundOptions, type RefundTestEnv } from './support/refund-env';
import { timelineOf } from './support/timeline';
import { failureOf } from './support/workflow-failure';
import { waitFor, signalsAnswered } from './support/wait-for';

// refundWorkflow on the time-skipping test server, activities in memory (FakeRefundStore), started as
// the API starts it (the refund written, then `{ refundId }`). Durations come from the history.

let h: RefundTestEnv;
beforeAll(async () => {
  h = await startRefundTestEnv();
});
afterAll(async () => {
  await h?.close();
});

async function run(options: RefundOptions) {
  const record = await h.refund(options);
  const handle = await h.start(record);
  const result = await handle.result();
  const timeline = timelineOf(await handle.fetchHistory());
  const transitions = h.store.transitionsOf(record.id).map(({ to, failureClass }) => (failureClass ? { to, failureClass } : { to }));
  return { record, handle, result, timeline, transitions, sa: await h.searchAttributes(record.id) };
}

describe('sandbox outcome (the refund\'s own metadata.sandbox_outcome)', () => {
  test.each([[null], ['succeed'], ['indeterminate'], ['approve_later']])('%s: succeeded after one 3 s timer; amount_refunded follows', async (outcome) => {
    const r = await run({ sandboxOutcome: outcome });
    expect(r.transitions).toEqual([{ to: 'succeeded' }]);
    expect(r.timeline.timers.map((t) => t.durationMs)).toEqual([COMPLETION_DELAY_MS]);
    expect(r.timeline.timers[0].firedAt).not.toBeNull();
    expect(r.result).toMatchObject({ id: r.record.id, status: 'succeeded', failureClass: null, chargeId: r.record.chargeId });
    expect(h.store.amountRefunded.get(r.record.chargeId)).toBe(r.record.amount);
    expect([r.sa.get(SA.PaymentStatus), r.sa.get(SA.FailureClass), r.sa.get(SA.NeedsAttention), r.sa.get(SA.Amount), r.sa.get(SA.Currency)]).toEqual([
      'succeeded',
      undefined,
      false,
      r.record.amount,
      'GHS',
    ]);
    // No metadata in history: the activity results carry the state only.
    expect(JSON.stringify(await r.handle.fetchHistory())).not.toContain('requested_by_customer');
  });

  test.each(FAILURE_CLASSES.map((c) => [c]))('%s: failed at once with that failure_class, no timer', async (outcome) => {
    const r = await run({ sandboxOutcome: outcome });
    expect(r.transitions).toEqual([{ to: 'failed', failureClass: outcome }]);
    expect(r.timeline.timers).toEqual([]);
    expect(r.result).toMatchObject({ status: 'failed', failureClass: outcome });
    expect([r.sa.get(SA.PaymentStatus), r.sa.get(SA.FailureClass)]).toEqual(['failed', outcome]);
    expect(h.store.amountRefunded.get(r.record.chargeId)).toBeUndefined();
  });

  test('pending: ten minutes, then failed with timeout', async () => {
    const r = await run({ sandboxOutcome: 'pending' });
    expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'timeout' }]);
    expect(r.timeline.timers.map((t) => t.durationMs)).toEqual([PENDING_TIMEOUT_MS]);
    expect(r.timeline.timers[0].firedAt).not.toBeNull();
    expect(r.timeline.timers[0].resumedAt! - r.timeline.timers[0].startedAt).toBeGreaterThanOrEqual(PENDING_TIMEOUT_MS);
  });

});

describe('live: the partner rail (issue 45)', () => {
  test("the refund goes to the partner (resource refund) and ends on its SUCCESSFUL; no sandbox timer", async () => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'FT-1' }]);
    const r = await run({ environment: 'live', sandboxOutcome: 'pending' });
    expect(r.transitions).toEqual([{ to: 'succeeded' }]);
    expect(h.rail.submits.filter((s) => s.paymentId === r.record.id)).toEqual([{ paymentId: r.record.id, product: 'refund' }]);
    expect(r.timeline.timers.map((t) => t.durationMs)).not.toContain(PENDING_TIMEOUT_MS);
  });

  test("the partner's FAILED ends it failed with the partner's class", async () => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'NOT_ENOUGH_FUNDS', failureClass: 'insufficient_funds' }]);
    const r = await run({ environment: 'live' });
    expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'insufficient_funds' }]);
  });

  test('no rail on the worker and nothing ever sent: failed at once with partner_unavailable', async () => {
    h.rail.partner({ kind: 'no_rail' }, []);
    const r = await run({ environment: 'live' });
    expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'partner_unavailable' }]);
  });

  test('no answer for ten minutes: still pending, NeedsAttention with the reason; nothing written', async () => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }]);
    const record = await h.refund({ environment: 'live' });
    const handle = await h.start(record);
    await h.env.sleep(11 * 60_000);
    await waitFor(async () => (await h.searchAttributes(record.id)).get(SA.NeedsAttention) === true);
    expect(h.store.transitionsOf(record.id)).toEqual([]);
    expect((await h.searchAttributes(record.id)).get(SA.NeedsAttentionReason)).toBe('waiting: partner rail');
    await handle.terminate('test done');
  });
});

describe('advance signal (sandbox)', () => {
  test.each([
    ['pending', 'sandbox pending outcome: ten minutes, then timeout', { to: 'failed', failureClass: 'timeout' }],
    [null, 'sandbox completion: the refund reaches the customer', { to: 'succeeded' }],
  ])('%s: advance wins the race with the timer; the history shows the signal and the timer cancelled', async (outcome, summary, transition) => {
    const record = await h.refund({ sandboxOutcome: outcome });
    const handle = await h.start(record);
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    expect(await handle.query('nextTimer')).toEqual({ summary, firesAt: expect.any(String) });
    await handle.signal('advance');
    await signalsAnswered(handle);
    await handle.result();
    expect(h.store.transitionsOf(record.id).map(({ to, failureClass }) => (failureClass ? { to, failureClass } : { to }))).toEqual([transition]);
    const { eventTypes, timers } = timelineOf(await handle.fetchHistory());
    expect(eventTypes).toEqual(expect.arrayContaining(['WORKFLOW_EXECUTION_SIGNALED', 'TIMER_CANCELED']));
    expect(eventTypes).not.toContain('TIMER_FIRED');
    expect(timers).toHaveLength(1);
    expect(eventTypes.indexOf('WORKFLOW_EXECUTION_SIGNALED')).toBeLessThan(eventTypes.indexOf('TIMER_CANCELED'));
  });

  test('nextTimer is null once the refund is finished', async () => {
    const r = await run({ sandboxOutcome: 'declined' });
    await expect(r.handle.query('nextTimer')).resolves.toBeNull();
  });
});

describe('trusts only the database', () => {
  test('a refund that was never written: RefundNotFoundError, nothing written', async () => {
    const record = await h.refund();
    const handle = await h.start(record, { write: false });
    const failure = await failureOf(handle.result());
    expect(failure).toMatchObject({ type: REFUND_NOT_FOUND, nonRetryable: true });
    expect(h.store.transitionsOf(record.id)).toEqual([]);
  });

  test('a workflow id other than the refund id: RefundInputRefused before any step', async () => {
    const record = await h.refund();
    const other = await h.refund();
    const failure = await failureOf((await h.start(record, { workflowId: other.id })).result());
    expect(failure).toMatchObject({ type: REFUND_INPUT_REFUSED, nonRetryable: true });
    expect(h.store.calls.filter((c) => c.refundId === record.id)).toEqual([]);
  });

  test('a finished refund started again moves nothing', async () => {
    const record = await h.refund({ status: 'succeeded' });
    const handle = await h.start(record);
    expect(await handle.result()).toMatchObject({ status: 'succeeded' });
    expect(h.store.transitionsOf(record.id)).toEqual([]);
    expect(timelineOf(await handle.fetchHistory()).timers).toEqual([]);
  });
});

describe('retryStep on the last step (issue 31, finding 3)', () => {
  test('the update answers success and its audit row is written before the run closes', async () => {
    const record = await h.refund();
    h.store.breakTransition(record.id, () => ApplicationFailure.create({ type: 'DeterministicDatabaseError', message: 'SQLSTATE 22P05: refused', nonRetryable: true }));
    const handle = await h.start(record);
    await waitFor(async () => (await h.searchAttributes(record.id)).get(SA.NeedsAttention) === true);
    h.store.heal(record.id);
    const answer = await handle.executeUpdate(retryStepUpdate, { args: [{ reason: 'database restored', operator: 'ui:jane' }] });
    expect(answer).toEqual({ chargeId: record.id, step: 'refund -> succeeded', by: 'operator' });
    expect(await handle.result()).toMatchObject({ status: 'succeeded' });
    expect(auditLog.of(record.id)).toEqual([expect.objectContaining({ action: 'refund.retry_step', operator: 'ui:jane', reason: 'database restored' })]);
  });
});
