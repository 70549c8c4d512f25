import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DB_STEP_RETRY, MAX_AUTOMATIC_RETRIES, type ChargeAttention, type RetryStepRequest } from '../../src/domain/charge-attention';
import { RECONCILER_OPERATOR } from '../../src/domain/operator-action';
import { SA } from '../../src/domain/search-attributes';
import type { chargeWorkflow } from '../../workflows/charge';
import { chargeAttentionQuery, retryStepUpdate } from '../../workflows/messages';
import { startChargeTestEnv, type ChargeTestEnv } from './support/charge-env';
import { auditLog } from './support/fake-audit';

// Bounded database retries (defect 6) on the time-skipping test server: a step that keeps failing
// gives up after DB_STEP_RETRY.maximumAttempts, the charge waits for an operator with
// NeedsAttention=true and no history growth, and retryStep finishes it. Waits are in workflow time
// (env.sleep skips it whenever the worker is idle), but for the first backoffs of a round, which the
// worker waits out itself.

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

type Handle = WorkflowHandle<typeof chargeWorkflow>;
const handleOf = (id: string): Handle => h.env.client.workflow.getHandle<typeof chargeWorkflow>(id);
const attentionOf = (handle: Handle): Promise<ChargeAttention> => handle.query(chargeAttentionQuery);
const eventCount = async (handle: Handle) => (await handle.fetchHistory()).events?.length ?? 0;
const transitionCalls = (id: string) => h.store.callsFor(id).filter((c) => c.activity === 'applyChargeTransition').length;
const retry = (handle: Handle, request: RetryStepRequest) => handle.executeUpdate(retryStepUpdate, { args: [request] });
/** Why the workflow refused a retryStep (its validator's message). */
async function refusal(handle: Handle, request: RetryStepRequest): Promise<string> {
  const error = await retry(handle, request).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return String((error as WorkflowUpdateFailedError).cause?.message);
}
const ECONNREFUSED = 'Error: connect ECONNREFUSED 127.0.0.1:5432';
const deterministic = () => ApplicationFailure.create({ type: 'DeterministicDatabaseError', message: 'SQLSTATE 22P05: unsupported Unicode escape sequence', nonRetryable: true });

/**
 * The durable part of one bounded round: its backoffs at or over localRetryThresholdMs, each a
 * timer in the history (the shorter ones the worker waits out itself, in real time: about 13 s).
 */
const ROUND_TIMERS_MS = Array.from({ length: DB_STEP_RETRY.maximumAttempts - 1 }, (_, i) => Math.min(DB_STEP_RETRY.initialIntervalMs * DB_STEP_RETRY.backoffCoefficient ** i, DB_STEP_RETRY.maximumIntervalMs))
  .filter((ms) => ms >= DB_STEP_RETRY.localRetryThresholdMs)
  .reduce((sum, ms) => sum + ms, 0);

/**
 * The length of the timer the run waits on with its worker idle (a timer started and neither fired
 * nor canceled, and no workflow task after the last one completed), or null.
 */
async function pendingTimerMs(handle: Handle): Promise<number | null> {
  const events = (await handle.fetchHistory()).events ?? [];
  const lastTask = events.findLastIndex((e) => e.workflowTaskScheduledEventAttributes || e.workflowTaskStartedEventAttributes || e.workflowTaskCompletedEventAttributes);
  if (lastTask === -1 || !events[lastTask].workflowTaskCompletedEventAttributes) return null;
  const ended = new Set(events.map((e) => String(e.timerFiredEventAttributes?.startedEventId ?? e.timerCanceledEventAttributes?.startedEventId)));
  const timeout = events.find((e) => e.timerStartedEventAttributes && !ended.has(String(e.eventId)))?.timerStartedEventAttributes?.startToFireTimeout;
  return timeout ? Number(String(timeout.seconds ?? 0)) * 1000 + Math.ceil((timeout.nanos ?? 0) / 1e6) : null;
}

/**
 * Until `done`, with `step` failing: in real time while the worker retries the step itself (time
 * must not be skipped then: the test server would skip a whole sleep while the worker is busy, and
 * lock time again afterwards). Whenever the run waits on a timer with its worker idle, straight to
 * it: before the step ran, that timer (the sandbox's completion); after, the round's backoff timers
 * and a minute more in one skip (the server keeps time still while each attempt runs in between),
 * instead of a minute at a time. Skips again if a round is still under way after it.
 */
async function skipUntil(id: string, step: string, done: () => Promise<boolean>): Promise<void> {
  const handle = handleOf(id);
  const deadline = Date.now() + 90_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${id}: not reached within 90 s of real time`);
    const timerMs = await pendingTimerMs(handle);
    if (timerMs === null) await new Promise((resolve) => setTimeout(resolve, 100));
    else await h.env.sleep(h.store.callsFor(id).some((c) => c.activity === step) ? ROUND_TIMERS_MS + 60_000 : timerMs);
  }
}

/** Until the charge waits for an operator after its `giveUps`-th give-up of `step`. */
const untilAttention = (id: string, step: string, giveUps = 1) =>
  skipUntil(id, step, async () => {
    const state = await attentionOf(handleOf(id));
    return state.needsAttention && state.giveUps >= giveUps;
  });

describe('a charge transition that keeps failing', () => {
  test('gives up after the bound, asks for attention, waits without history growth, and finishes after retryStep', async () => {
    const draft = await h.draft(); // succeeds after 3 s: the transition to succeeded is the failing step
    h.store.breakStep(draft.id, 'applyChargeTransition');
    await h.start(draft);
    const handle = handleOf(draft.id);
    await untilAttention(draft.id, 'applyChargeTransition');

    // Gave up after exactly the bound, with the reason kept in the workflow.
    expect(transitionCalls(draft.id)).toBe(DB_STEP_RETRY.maximumAttempts);
    const attention = await attentionOf(handle);
    expect(attention).toMatchObject({ needsAttention: true, step: 'charge -> succeeded', giveUps: 1, operatorRetries: 0 });
    expect(attention.reason).toMatch(/^charge -> succeeded: gave up \(retries exhausted\): Error: connect ECONNREFUSED/);
    const sa = await h.searchAttributes(draft.id);
    expect([sa.get(SA.NeedsAttention), sa.get(SA.PaymentStatus)]).toEqual([true, 'awaiting_action']);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    // Bounded history: about 5 events per durable backoff timer (33 of them), then nothing while it waits.
    const atGiveUp = await eventCount(handle);
    expect(atGiveUp).toBeLessThan(300);
    await h.env.sleep('3 days'); // what used to be enough to hit Temporal's history limit
    expect(await eventCount(handle)).toBe(atGiveUp);
    expect(transitionCalls(draft.id)).toBe(DB_STEP_RETRY.maximumAttempts);

    // retryStep is validated: a reason is required.
    expect(await refusal(handle, { reason: '  ' })).toBe('a reason is required');
    // An operator's retry names the operator (the audit log): a raw update without one is refused.
    expect(await refusal(handle, { reason: 'database restored' })).toMatch(/^an "operator" is required/);

    h.store.heal(draft.id);
    expect(await retry(handle, { reason: 'database restored', operator: 'ui:jane' })).toEqual({ chargeId: draft.id, step: 'charge -> succeeded', by: 'operator' });
    expect(auditLog.of(draft.id)).toEqual([
      expect.objectContaining({ action: 'charge.retry_step', operator: 'ui:jane', reason: 'database restored', before: expect.objectContaining({ needsAttention: true }), after: expect.objectContaining({ operatorRetries: 1 }) }),
    ]);
    const result = await h.settle(draft.id);
    expect(result).toMatchObject({ id: draft.id, status: 'succeeded' });
    expect(transitionCalls(draft.id)).toBe(DB_STEP_RETRY.maximumAttempts + 1);
    const after = await h.searchAttributes(draft.id);
    expect([after.get(SA.NeedsAttention), after.get(SA.PaymentStatus)]).toEqual([false, 'succeeded']);
    expect(await attentionOf(handle)).toMatchObject({
      needsAttention: false,
      giveUps: 1,
      operatorRetries: 1,
      lastRetry: { by: 'operator', reason: 'database restored', at: expect.any(String) },
    });
  });

  test('a deterministic database error gives up at once; the reconciler may retry a bounded number of times, an operator always', async () => {
    const draft = await h.draft({ metadata: { sandbox_outcome: 'declined' } });
    h.store.breakStep(draft.id, 'applyChargeTransition', deterministic);
    await h.start(draft);
    const handle = handleOf(draft.id);
    await untilAttention(draft.id, 'applyChargeTransition');
    expect(transitionCalls(draft.id)).toBe(1); // not retried
    expect((await attentionOf(handle)).reason).toMatch(/^charge -> failed \(declined\): gave up \(not retryable\): DeterministicDatabaseError: SQLSTATE 22P05/);

    // Issue 31: `by: "reconciler"` alone (what a raw update from the UI could send) names nobody: refused.
    expect(await refusal(handle, { reason: 'reconciler: pass 0', by: 'reconciler' })).toMatch(/^an "operator" is required/);
    for (let n = 1; n <= MAX_AUTOMATIC_RETRIES; n++) {
      await retry(handle, { reason: `reconciler: pass ${n}`, operator: RECONCILER_OPERATOR, by: 'reconciler' });
      await untilAttention(draft.id, 'applyChargeTransition', n + 1);
      expect(await attentionOf(handle)).toMatchObject({ needsAttention: true, giveUps: n + 1, automaticRetries: n, operatorRetries: 0, lastRetry: expect.objectContaining({ by: 'reconciler' }) });
    }
    expect(auditLog.of(draft.id).map((e) => e.operator)).toEqual(Array(MAX_AUTOMATIC_RETRIES).fill(RECONCILER_OPERATOR));
    expect(await refusal(handle, { reason: 'reconciler: one more', operator: RECONCILER_OPERATOR, by: 'reconciler' })).toMatch(/automatic retries are used up; an operator must retry$/);

    h.store.heal(draft.id);
    await retry(handle, { reason: 'fixed the row', operator: 'ui:jane' });
    expect(await h.settle(draft.id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
    expect(transitionCalls(draft.id)).toBe(MAX_AUTOMATIC_RETRIES + 2);
    expect((await h.searchAttributes(draft.id)).get(SA.NeedsAttention)).toBe(false);
  });

  test('retryStep is refused while nothing gave up, and leaves the charge alone', async () => {
    const draft = await h.draft({ metadata: { sandbox_outcome: 'pending' } });
    await h.start(draft);
    const handle = handleOf(draft.id);
    expect(await refusal(handle, { reason: 'just in case', operator: 'ui:jane' })).toBe(`charge ${draft.id} is not waiting for an operator: nothing to retry`);
    expect((await h.searchAttributes(draft.id)).get(SA.NeedsAttention)).toBeUndefined();
    expect(await h.settle(draft.id)).toMatchObject({ status: 'failed', failureClass: 'timeout' });
  });
});

// Recording the acceptance (update-with-start with a whole draft) is the legacy path: new runs refuse
// that input (test/workflows/charge-refusals.test.ts); its give-up is kept as a recorded history
// (test/replay/histories/chargeWorkflow-acceptance-not-recorded.json) that must keep replaying.
describe('loading the charge keeps failing', () => {
  test('the begin step gives up after the bound, asks for attention, and the charge runs after retryStep', async () => {
    const draft = await h.draft({ metadata: { sandbox_outcome: 'declined' } });
    h.store.breakStep(draft.id, 'beginCharge');
    await h.start(draft);
    const handle = handleOf(draft.id);
    await untilAttention(draft.id, 'beginCharge');
    expect(h.store.callsFor(draft.id).map((c) => c.activity)).toEqual(Array(DB_STEP_RETRY.maximumAttempts).fill('beginCharge'));
    expect((await attentionOf(handle)).reason).toBe(`begin charge: gave up (retries exhausted): ${ECONNREFUSED}`);
    expect(h.store.transitionsOf(draft.id)).toEqual([]);

    h.store.heal(draft.id);
    await retry(handle, { reason: 'database restored', operator: 'ui:jane' });
    expect(await h.settle(draft.id)).toMatchObject({ status: 'failed', failureClass: 'declined' });
    expect(h.store.transitionsOf(draft.id).map((t) => t.to)).toEqual(['failed']);
  });
});
