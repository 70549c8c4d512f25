import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { newId } from '../../src/support/new-id';
import { retryStepUpdate } from '../../workflows/messages';
import type { ChargeAttention } from '../../src/domain/charge-attention';
import { NOTHING_TO_SETTLE } from '../../src/domain/settlement';
import type { RetrySettlementResult } from '../../src/domain/settlement-retry';
import { SETTLEMENT_INPUT_REFUSED } from '../../src/domain/settlement-start';
import { SA } from '../../src/domain/search-attributes';
import { COMPLETION_DELAY_MS } from '../../src/domain/sandbox-outcome';
import { FAKE_ACCOUNT_NUMBER, startSettlementTestEnv, type SettlementStartOptions, type SettlementTestEnv } from './support/settlement-env';
import { retrySettlementUpdate } from '../../workflows/settlement-retry-messages';
import { BUILD_CHECK_INTERVAL_MS } from '../../workflows/settlement-retry';
import { timelineOf } from './support/timeline';
import { failureOf } from './support/workflow-failure';
import { waitFor, signalsAnswered } from './support/wait-for';
import { auditLog } from './support/fake-audit';

// settlementWorkflow on the time-skipping test server, activities in memory (FakeSettlementStore),
// started as the settlement run starts a batch. Durations come from the history.

let h: SettlementTestEnv;
beforeAll(async () => {
  h = await startSettlementTestEnv();
});
afterAll(async () => {
  await h?.close();
});

async function run(options: SettlementStartOptions) {
  const handle = await h.start(options);
  const result = await handle.result();
  const history = await handle.fetchHistory();
  const transitions = h.store.transitionsOf(handle.workflowId).map(({ to, failureClass }) => (failureClass ? { to, failureClass } : { to }));
  return { handle, result, history, timeline: timelineOf(history), transitions, sa: await h.searchAttributes(handle.workflowId) };
}

describe('a batch paid', () => {
  test('sweep, then one ~3 s payment timer, then paid: the money in transit leaves', async () => {
    const merchantId = h.merchant(40_000);
    const r = await run({ merchantId });
    expect(r.result).toMatchObject({ kind: 'batch', id: r.handle.workflowId, status: 'paid', amount: 40_000, currency: 'GHS', failureClass: null });
    expect(r.transitions).toEqual([{ to: 'paid' }]);
    expect(r.timeline.timers.map((t) => t.durationMs)).toEqual([COMPLETION_DELAY_MS]);
    expect(r.timeline.timers[0].firedAt).not.toBeNull();
    expect(h.store.balanceOf(merchantId)).toEqual({ available: 0, inTransit: 0 });
    expect(h.store.batches.get(r.handle.workflowId)).toMatchObject({ status: 'paid', paidAt: expect.any(String), runId: 'run_test' });
    expect([r.sa.get(SA.PaymentStatus), r.sa.get(SA.Amount), r.sa.get(SA.NeedsAttention), r.sa.get(SA.MerchantId), r.sa.get(SA.Environment), r.sa.get(SA.Currency), r.sa.get(SA.FailureClass)]).toEqual([
      'paid',
      40_000,
      false,
      merchantId,
      'sandbox',
      'GHS',
      undefined,
    ]);
    // History holds the batch's state only: never the destination account.
    expect(JSON.stringify(r.history)).not.toContain(FAKE_ACCOUNT_NUMBER);
    expect(JSON.stringify(r.history)).not.toContain(Buffer.from(FAKE_ACCOUNT_NUMBER).toString('base64'));
  });

  test('the batch is pending, its money in transit, while the payment timer waits; the run says what it waits for', async () => {
    const merchantId = h.merchant(12_345);
    const handle = await h.start({ merchantId });
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    expect(await handle.query('settlementState')).toMatchObject({ status: 'pending', amount: 12_345 });
    expect(h.store.balanceOf(merchantId)).toEqual({ available: 0, inTransit: 12_345 });
    const metadata = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe("waiting: sandbox payment: the settlement reaches the merchant's bank account (about 3 s, or advance); 12345 GHS in transit");
    await handle.signal('advance');
    await signalsAnswered(handle);
    expect(await handle.result()).toMatchObject({ status: 'paid' });
  });
});

/** Starts a batch that fails and waits until its run waits for an operator (a sandbox batch's payment timer skipped). */
async function failedAndWaiting(options: SettlementStartOptions) {
  const handle = await h.start(options);
  if ((options.environment ?? 'sandbox') === 'sandbox') {
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    await h.env.sleep(COMPLETION_DELAY_MS);
  }
  await waitFor(async () => (await handle.query<ChargeAttention>('chargeAttention')).needsAttention);
  return handle;
}

const details = async (handle: WorkflowHandle) => (await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;

async function updateRefusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return (error as WorkflowUpdateFailedError).cause?.message ?? '';
}

describe('a batch failed', () => {
  test('a failed batch waiting for its retry looks for a newer current build every hour; on an unversioned worker it stays in its run (issue 31, finding 8)', async () => {
    const handle = await failedAndWaiting({ merchantId: h.merchant(4_000), outcome: 'failed' });
    const { runId } = await handle.describe();
    await h.env.sleep(3 * BUILD_CHECK_INTERVAL_MS + 1_000);
    await waitFor(async () => timelineOf(await handle.fetchHistory()).timers.filter((t) => t.firedAt !== null).length >= 4);
    const described = await handle.describe();
    expect([described.status.name, described.runId]).toEqual(['RUNNING', runId]);
    expect((await handle.query<ChargeAttention>('chargeAttention')).needsAttention).toBe(true);
    const answer = await handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'retry after hours', operator: 'ui:jane' }] });
    expect(await handle.result()).toMatchObject({ status: 'failed', retried_as: answer.retried_as });
  });

  test('sandbox outcome failed: after the payment timer, failed (declined); the money returns to available; the run stays open, NeedsAttention with the reason and the retry command', async () => {
    const merchantId = h.merchant(25_000);
    const handle = await failedAndWaiting({ merchantId, outcome: 'failed' });
    expect(await handle.query('settlementState')).toMatchObject({ status: 'failed', failureClass: 'declined', amount: 25_000 });
    expect(h.store.transitionsOf(handle.workflowId).map(({ to, failureClass }) => ({ to, failureClass }))).toEqual([{ to: 'failed', failureClass: 'declined' }]);
    // The payment timer, then the wait's hourly look for a newer current build (issue 31, finding 8).
    expect(timelineOf(await handle.fetchHistory()).timers.map((t) => t.durationMs)).toEqual([COMPLETION_DELAY_MS, BUILD_CHECK_INTERVAL_MS]);
    expect(h.store.balanceOf(merchantId)).toEqual({ available: 25_000, inTransit: 0 });
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const sa = await h.searchAttributes(handle.workflowId);
    expect([sa.get(SA.PaymentStatus), sa.get(SA.FailureClass), sa.get(SA.NeedsAttention)]).toEqual(['failed', 'declined', true]);
    // `payments stuck` asks the chargeAttention query for the reason.
    const attention = await handle.query<ChargeAttention>('chargeAttention');
    expect(attention).toMatchObject({ needsAttention: true, step: 'settlement payment', reason: expect.stringContaining(`settlement ${handle.workflowId} failed (declined)`) });
    expect(attention.reason).toContain(`settlements retry ${handle.workflowId} --reason TEXT`);
    expect(JSON.stringify(attention)).not.toContain(FAKE_ACCOUNT_NUMBER);
    expect(await details(handle)).toBe(
      `waiting for an operator: failed (declined), 25000 GHS returned to available. Retry: settlements retry ${handle.workflowId} --reason TEXT (or the retrySettlement update from the Temporal UI: {"reason":"…"})`,
    );
    await expect(handle.query('nextTimer')).resolves.toBeNull();
  });

  test('retrySettlement: a new batch (a child, same balance, id stl_…) sweeps the released money and is paid; NeedsAttention cleared; the failed run ends with retried_as and who/why', async () => {
    const merchantId = h.merchant(25_000);
    const handle = await failedAndWaiting({ merchantId, outcome: 'failed' });
    const answer = await handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: '  account fixed  ', by: 'cli:ops' }] });
    const newId = answer.retried_as;
    expect(newId).toMatch(/^stl_[0-9A-Za-z]{24}$/);
    expect(newId).not.toBe(handle.workflowId);
    expect(answer).toEqual({ id: handle.workflowId, status: 'failed', retried_as: newId, retry: { reason: 'account fixed', by: 'cli:ops', at: expect.any(String) } });

    const result = await handle.result();
    expect(result).toMatchObject({ kind: 'batch', id: handle.workflowId, status: 'failed', failureClass: 'declined', amount: 25_000, retried_as: newId, retry: answer.retry });
    const sa = await h.searchAttributes(handle.workflowId);
    expect([sa.get(SA.PaymentStatus), sa.get(SA.NeedsAttention)]).toEqual(['failed', false]);
    expect(await handle.query<ChargeAttention>('chargeAttention')).toMatchObject({ needsAttention: false, operatorRetries: 1, lastRetry: { by: 'operator', reason: `account fixed (by cli:ops; retried as ${newId})` } });
    expect(await details(handle)).toBe(`finished: failed, retried as ${newId} by cli:ops: account fixed`);

    // The new batch: the real workflow, started as a child on the same queue, abandoned by the parent.
    const child = h.env.client.workflow.getHandle(newId);
    expect(await child.result()).toMatchObject({ kind: 'batch', id: newId, status: 'paid', amount: 25_000, merchantId, environment: 'sandbox', currency: 'GHS' });
    expect(h.store.batches.get(newId)).toMatchObject({ runId: null, sandboxOutcome: null, status: 'paid' });
    expect(h.store.balanceOf(merchantId)).toEqual({ available: 0, inTransit: 0 });
    const described = await child.describe();
    expect(described.parentExecution?.workflowId).toBe(handle.workflowId);
    expect(described.taskQueue).toBe(`${h.taskQueue}-sandbox`);
    const childSa = described.typedSearchAttributes;
    expect([childSa.get(SA.MerchantId), childSa.get(SA.Environment), childSa.get(SA.Currency), childSa.get(SA.NeedsAttention), childSa.get(SA.PaymentStatus)]).toEqual([merchantId, 'sandbox', 'GHS', false, 'paid']);
    const { eventTypes } = timelineOf(await handle.fetchHistory());
    expect(eventTypes).toEqual(expect.arrayContaining(['WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'START_CHILD_WORKFLOW_EXECUTION_INITIATED', 'CHILD_WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_EXECUTION_UPDATE_COMPLETED']));
    expect(eventTypes[eventTypes.length - 1]).toBe('WORKFLOW_EXECUTION_COMPLETED');
  });

  test('a retry after the money was swept by another batch: the new batch finds nothing, and says so; the failed run still ends retried', async () => {
    const merchantId = h.merchant(6_000);
    const handle = await failedAndWaiting({ merchantId, outcome: 'failed' });
    const sweptFirst = await run({ merchantId }); // as a settlement run would
    expect(sweptFirst.result).toMatchObject({ status: 'paid', amount: 6_000 });
    const answer = await handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'retry anyway', operator: 'ui:jane' }] });
    expect(answer.retry.by).toBe('ui:jane');
    expect(auditLog.of(handle.workflowId)).toEqual([expect.objectContaining({ action: 'settlement.retry', operator: 'ui:jane', reason: 'retry anyway', batchId: null, before: expect.objectContaining({ status: 'failed' }), after: expect.objectContaining({ retried_as: answer.retried_as }) })]);
    expect(await h.env.client.workflow.getHandle(answer.retried_as).result()).toEqual({ kind: 'nothing', reason: NOTHING_TO_SETTLE.noBalance });
    expect(await handle.result()).toMatchObject({ status: 'failed', retried_as: answer.retried_as });
    expect((await h.searchAttributes(handle.workflowId)).get(SA.NeedsAttention)).toBe(false);
    expect([...h.store.batches.values()].filter((b) => b.merchantId === merchantId).map((b) => b.status)).toEqual(['failed', 'paid']);
  });

  test('live (no live rail): failed at once with partner_unavailable, no payment timer, waits with NeedsAttention; a retry starts a live batch on the live queue, which fails and waits in turn', async () => {
    const merchantId = h.merchant(9_000, 'live');
    const handle = await failedAndWaiting({ merchantId, environment: 'live' });
    expect(h.store.transitionsOf(handle.workflowId).map(({ to, failureClass }) => ({ to, failureClass }))).toEqual([{ to: 'failed', failureClass: 'partner_unavailable' }]);
    // No payment timer: only the wait's hourly look for a newer current build (issue 31, finding 8).
    expect(timelineOf(await handle.fetchHistory()).timers.map((t) => t.durationMs)).toEqual([BUILD_CHECK_INTERVAL_MS]);
    expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 9_000, inTransit: 0 });
    const sa = await h.searchAttributes(handle.workflowId);
    expect([sa.get(SA.Environment), sa.get(SA.NeedsAttention)]).toEqual(['live', true]);

    const answer = await handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'live rail back', by: 'cli:ops' }] });
    expect(await handle.result()).toMatchObject({ status: 'failed', failureClass: 'partner_unavailable', retried_as: answer.retried_as });
    expect((await h.searchAttributes(handle.workflowId)).get(SA.NeedsAttention)).toBe(false);
    const child = h.env.client.workflow.getHandle(answer.retried_as);
    expect((await child.describe()).taskQueue).toBe(`${h.taskQueue}-live`);
    await waitFor(async () => (await child.query<ChargeAttention>('chargeAttention')).needsAttention);
    expect(await child.query('settlementState')).toMatchObject({ status: 'failed', failureClass: 'partner_unavailable', amount: 9_000, environment: 'live' });
    expect((await h.searchAttributes(answer.retried_as)).get(SA.NeedsAttention)).toBe(true);
    expect(h.store.balanceOf(merchantId, 'live')).toEqual({ available: 9_000, inTransit: 0 });
    // And it can be retried in its turn.
    const again = await child.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'once more', operator: 'ui:jane' }] });
    expect(await child.result()).toMatchObject({ retried_as: again.retried_as });
  });
});

describe('retrySettlement refused (validator): nothing changes', () => {
  test('a blank or missing reason, a bad sender, no operator: refused, the batch still waits', async () => {
    const handle = await failedAndWaiting({ merchantId: h.merchant(4_000), outcome: 'failed' });
    expect(await updateRefusal(handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: '   ' }] }))).toBe('a non-empty "reason" is required');
    expect(await updateRefusal(handle.executeUpdate(retrySettlementUpdate, { args: [{} as never] }))).toBe('a non-empty "reason" is required');
    expect(await updateRefusal(handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'x'.repeat(501) }] }))).toBe('"reason" is longer than 500 characters');
    expect(await updateRefusal(handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'ok', by: ' ' }] }))).toMatch(/^"by", when sent/);
    // No operator: Temporal records no reason and no identity of its own, so the audit needs both.
    expect(await updateRefusal(handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'ok' }] }))).toMatch(/^an "operator" is required/);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect((await h.searchAttributes(handle.workflowId)).get(SA.NeedsAttention)).toBe(true);
    const { eventTypes } = timelineOf(await handle.fetchHistory());
    expect(eventTypes).not.toContain('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
    expect(eventTypes).not.toContain('START_CHILD_WORKFLOW_EXECUTION_INITIATED');
    // Then a valid one goes through.
    await handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'fixed', operator: 'ui:jane' }] });
    expect(await handle.result()).toMatchObject({ retried_as: expect.stringMatching(/^stl_/) });
  });

  test('a batch still pending (in transit): refused, it goes on to be paid', async () => {
    const handle = await h.start({ merchantId: h.merchant(2_000) });
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    expect(await updateRefusal(handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'too early', operator: 'ui:jane' }] }))).toBe(`settlement ${handle.workflowId} is pending: only a failed batch can be retried`);
    await handle.signal('advance');
    await signalsAnswered(handle);
    expect(await handle.result()).toMatchObject({ status: 'paid' });
    expect(await handle.result()).not.toHaveProperty('retried_as');
  });

  test('two retries at once: one starts a new batch, the other is refused (already retried, or the run has ended)', async () => {
    const merchantId = h.merchant(3_500);
    const handle = await failedAndWaiting({ merchantId, outcome: 'failed' });
    const outcomes = await Promise.allSettled([1, 2].map((n) => handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: `retry ${n}`, operator: 'ui:jane' }] })));
    const accepted = outcomes.filter((o) => o.status === 'fulfilled');
    expect(accepted).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected')!.reason as Error;
    if (refused instanceof WorkflowUpdateFailedError) expect(refused.cause?.message).toMatch(new RegExp(`^settlement ${handle.workflowId}( was already retried as stl_|: a retry is already under way)`));
    else expect(refused).toBeInstanceOf(WorkflowNotFoundError);
    const result = await handle.result();
    expect(result).toMatchObject({ retried_as: (accepted[0] as PromiseFulfilledResult<RetrySettlementResult>).value.retried_as });
    const children = timelineOf(await handle.fetchHistory()).eventTypes.filter((t) => t === 'START_CHILD_WORKFLOW_EXECUTION_INITIATED');
    expect(children).toHaveLength(1);
    expect(await h.env.client.workflow.getHandle((result as { retried_as: string }).retried_as).result()).toMatchObject({ status: 'paid', amount: 3_500 });
  });
});

describe('nothing to sweep', () => {
  test('no positive balance: the run ends { kind: nothing } without a batch, a transition or a timer', async () => {
    const merchantId = h.merchant(0);
    const r = await run({ merchantId });
    expect(r.result).toEqual({ kind: 'nothing', reason: NOTHING_TO_SETTLE.noBalance });
    expect(h.store.batches.has(r.handle.workflowId)).toBe(false);
    expect(r.transitions).toEqual([]);
    expect(r.timeline.timers).toEqual([]);
    expect(r.sa.get(SA.PaymentStatus)).toBeUndefined();
  });

  test('no settlement account: nothing, whatever the balance', async () => {
    const r = await run({});
    expect(r.result).toEqual({ kind: 'nothing', reason: NOTHING_TO_SETTLE.noAccount });
  });

  test('a second batch for the same balance right after the first moves nothing', async () => {
    const merchantId = h.merchant(7_000);
    const first = await run({ merchantId });
    const second = await run({ merchantId });
    expect(first.result).toMatchObject({ status: 'paid', amount: 7_000 });
    expect(second.result).toEqual({ kind: 'nothing', reason: NOTHING_TO_SETTLE.noBalance });
    expect([...h.store.batches.values()].filter((b) => b.merchantId === merchantId)).toHaveLength(1);
  });
});

describe('advance signal (sandbox)', () => {
  test.each([
    [null, "sandbox payment: the settlement reaches the merchant's bank account", { to: 'paid' }],
    ['failed' as const, 'sandbox payment: the bank refuses the settlement (outcome failed)', { to: 'failed', failureClass: 'declined' }],
  ])('outcome %s: advance wins the race with the timer; the history shows the signal and the timer cancelled', async (outcome, summary, transition) => {
    const merchantId = h.merchant(3_000);
    const handle = await h.start({ merchantId, outcome });
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    expect(await handle.query('nextTimer')).toEqual({ summary, firesAt: expect.any(String) });
    await handle.signal('advance');
    await signalsAnswered(handle);
    // A failed batch then waits for an operator (retrySettlement): its run stays open.
    if (outcome === 'failed') await waitFor(async () => (await handle.query<ChargeAttention>('chargeAttention')).needsAttention);
    else await handle.result();
    expect(h.store.transitionsOf(handle.workflowId).map(({ to, failureClass }) => (failureClass ? { to, failureClass } : { to }))).toEqual([transition]);
    const { eventTypes, timers } = timelineOf(await handle.fetchHistory());
    expect(eventTypes).toEqual(expect.arrayContaining(['WORKFLOW_EXECUTION_SIGNALED', 'TIMER_CANCELED']));
    expect(eventTypes).not.toContain('TIMER_FIRED');
    // The payment timer (a failed batch's wait adds its hourly build check: issue 31, finding 8).
    expect(timers.filter((t) => t.durationMs !== BUILD_CHECK_INTERVAL_MS)).toHaveLength(1);
    expect(eventTypes.indexOf('WORKFLOW_EXECUTION_SIGNALED')).toBeLessThan(eventTypes.indexOf('TIMER_CANCELED'));
  });

  test('nextTimer is null once the batch is finished', async () => {
    const r = await run({ merchantId: h.merchant(1_000), environment: 'sandbox' });
    await expect(r.handle.query('nextTimer')).resolves.toBeNull();
  });
});

describe('retryStep on the last step (issue 31, finding 3)', () => {
  test('paid after a retry: the update answers success and its audit row is written before the run closes', async () => {
    const settlementId = newId('settlement');
    h.store.breakTransition(settlementId, () => ApplicationFailure.create({ type: 'DeterministicDatabaseError', message: 'SQLSTATE 22P05: refused', nonRetryable: true }));
    const handle = await h.start({ settlementId, merchantId: h.merchant(2_500) });
    await waitFor(async () => (await h.searchAttributes(settlementId)).get(SA.NeedsAttention) === true);
    h.store.heal(settlementId);
    const answer = await handle.executeUpdate(retryStepUpdate, { args: [{ reason: 'database restored', operator: 'ui:jane' }] });
    expect(answer).toEqual({ chargeId: settlementId, step: 'settlement -> paid', by: 'operator' });
    expect(await handle.result()).toMatchObject({ status: 'paid' });
    expect(auditLog.of(settlementId)).toEqual([expect.objectContaining({ action: 'settlement.retry_step', operator: 'ui:jane', reason: 'database restored' })]);
  });
});

describe('refusals before any step', () => {
  test('a workflow id other than the settlement id', async () => {
    const merchantId = h.merchant(5_000);
    const failure = await failureOf((await h.start({ merchantId, workflowId: 'stl_000000000000000000000000' })).result());
    expect(failure).toMatchObject({ type: SETTLEMENT_INPUT_REFUSED, nonRetryable: true });
    expect(h.store.calls.filter((c) => c.request.settlementId === 'stl_000000000000000000000000')).toEqual([]);
    expect(h.store.balanceOf(merchantId)).toEqual({ available: 5_000, inTransit: 0 });
  });

  test("search attributes of another merchant than the input's", async () => {
    const merchantId = h.merchant(5_000);
    const failure = await failureOf((await h.start({ merchantId, searchAttributesFor: { merchantId: 'mer_000000000000000000000000', environment: 'sandbox', currency: 'GHS' } })).result());
    expect(failure).toMatchObject({ type: SETTLEMENT_INPUT_REFUSED, nonRetryable: true });
    expect(h.store.balanceOf(merchantId)).toEqual({ available: 5_000, inTransit: 0 });
  });

  test('an input that is not a SettlementStart', async () => {
    const id = 'stl_111111111111111111111111';
    const handle = await h.env.client.workflow.start('settlementWorkflow', { workflowId: id, taskQueue: `${h.taskQueue}-sandbox`, args: [{ settlementId: id }] });
    const failure = await failureOf(handle.result());
    expect(failure).toMatchObject({ type: SETTLEMENT_INPUT_REFUSED, nonRetryable: true });
  });
});

// After the tests that sleep through hours: a retry's update leaves the test server's time skipping
// locked for the rest of the file (its clock then runs in real time).
describe('settlementSettledLate is trusted only when the batch is stored paid (issue 31)', () => {
  test('a settlementSettledLate signal sent by hand to a batch nobody accepted as paid is ignored: the batch still waits for its retry (issue 31, finding 2)', async () => {
    const handle = await failedAndWaiting({ merchantId: h.merchant(6_000), outcome: 'failed' });
    await handle.signal('settlementSettledLate');
    await signalsAnswered(handle);
    await waitFor(async () => timelineOf(await handle.fetchHistory()).eventTypes.includes('ACTIVITY_TASK_COMPLETED'));
    await signalsAnswered(handle);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect((await handle.query<ChargeAttention>('chargeAttention')).needsAttention).toBe(true);
    const answer = await handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'account fixed', operator: 'ui:jane' }] });
    expect(await handle.result()).toMatchObject({ status: 'failed', retried_as: answer.retried_as });
    expect(await h.env.client.workflow.getHandle(answer.retried_as).result()).toMatchObject({ status: 'paid' });
  });

  test('once its payment review accepted it as paid late (stored paid), the signal ends the wait: settled_late, no retry', async () => {
    const handle = await failedAndWaiting({ merchantId: h.merchant(7_000), outcome: 'failed' });
    const batch = h.store.batches.get(handle.workflowId)!;
    h.store.batches.set(batch.id, { ...batch, status: 'paid' }); // what settle-late --action accept writes
    await handle.signal('settlementSettledLate');
    await signalsAnswered(handle);
    expect(await handle.result()).toMatchObject({ status: 'failed', settled_late: true });
  });
});
