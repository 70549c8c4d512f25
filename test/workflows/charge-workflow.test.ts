import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { ChargeDraft } from '../../src/domain/charge';
import { chargeState, type ChargeState } from '../../src/domain/charge-state';
import { FAILURE_CLASSES } from '../../src/domain/failure-classes';
import { SA } from '../../src/domain/search-attributes';
import { COMPLETION_DELAY_MS, PENDING_TIMEOUT_MS } from '../../src/domain/sandbox-outcome';
import { startChargeTestEnv, type ChargeTestEnv, type DraftOptions } from './support/charge-env';
import { expectAimedAt, timelineOf, type Timeline, type TimerSpan } from './support/timeline';
import { auditLog } from './support/fake-audit';
import { failureOf } from './support/workflow-failure';
import type { chargeReversalWorkflow } from '../../workflows/charge-reversal';

// chargeWorkflow on the time-skipping test server, activities replaced by an in-memory store, started
// as the API starts it (the charge written, then `{ chargeId }`; test/workflows/charge-begin.test.ts).
// Durations are asserted in workflow time, read from the run's history: the durable timers the
// workflow set, and the workflow clock each transition carries (`at`). Nothing depends on wall time.

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

/** What the workflow holds of the charge: its state, no customer data. */
const stateOf = ({ sandboxOutcome: _, ...record }: ChargeDraft): ChargeState => chargeState(record);

/** Writes and starts a charge the way the API does, lets it run to its end, and collects what happened. */
async function run(options: DraftOptions) {
  const draft = await h.draft(options);
  await h.start(draft);
  const result = await h.settle(draft.id);
  const timeline = timelineOf(await h.env.client.workflow.getHandle(draft.id).fetchHistory());
  const transitions = h.store.transitionsOf(draft.id);
  const activities = h.store.callsFor(draft.id).map((c) => c.activity);
  return { draft, result, timeline, transitions, activities, at: Date.parse(transitions.at(-1)?.at ?? '') };
}

/** The run's only durable timer: set in the acceptance task, never firing early. */
function onlyTimer(timeline: Timeline): TimerSpan {
  expect(timeline.timers).toHaveLength(1);
  const [timer] = timeline.timers;
  expect(timer.startedInTask).toBe(0);
  expect(timer.firedAt! - timer.startedAt).toBeGreaterThanOrEqual(timer.durationMs); // never early
  return timer;
}

/** The timer aims at `target` and the run resumed at or after it. */
function expectResumedAt(timer: TimerSpan, target: string | number): void {
  expectAimedAt(timer, target);
  expect(timer.resumedAt!).toBeGreaterThanOrEqual(typeof target === 'number' ? target : Date.parse(target));
}

/** `ms` after the charge's creation (issue 34: the sandbox rail's delays count from it). */
const afterCreation = (draft: ChargeDraft, ms: number) => Date.parse(draft.createdAt) + ms;

describe('sandbox_outcome (SPEC 4.2) and environment', () => {
  test.each<[string, DraftOptions]>([
    ['absent', {}],
    ['succeed', { metadata: { sandbox_outcome: 'succeed' } }],
    ['unrecognised ("approve_later")', { metadata: { sandbox_outcome: 'approve_later' } }],
  ])('%s: succeeded 3000 ms of workflow time after creation', async (_, options) => {
    const r = await run(options);
    expect(r.activities).toEqual(['beginCharge', 'applyChargeTransition']);
    expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'succeeded', failureClass: null, at: expect.any(String) }]);
    const timer = onlyTimer(r.timeline);
    expectResumedAt(timer, afterCreation(r.draft, COMPLETION_DELAY_MS));
    expect(timer.resumedAt).toBe(r.at);
    expect(r.result).toEqual({ ...stateOf(r.draft), status: 'succeeded', updatedAt: r.transitions[0].at });
    const sa = await h.searchAttributes(r.draft.id);
    expect([sa.get(SA.PaymentStatus), sa.get(SA.Environment), sa.get(SA.FailureClass)]).toEqual(['succeeded', r.draft.environment, undefined]);
  });

  test('live, no live rail: failed at once with partner_unavailable, never succeeded by the simulator (sandbox_outcome ignored)', async () => {
    for (const metadata of [{}, { sandbox_outcome: 'succeed' }, { sandbox_outcome: 'pending' }]) {
      const r = await run({ environment: 'live', metadata });
      expect(r.activities).toEqual(['beginCharge', 'applyChargeTransition']);
      expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'failed', failureClass: 'partner_unavailable', at: expect.any(String) }]);
      expect(r.timeline.timers).toEqual([]);
      expect(r.result).toEqual({ ...stateOf(r.draft), status: 'failed', failureClass: 'partner_unavailable', updatedAt: r.transitions[0].at });
      const sa = await h.searchAttributes(r.draft.id);
      expect([sa.get(SA.PaymentStatus), sa.get(SA.Environment), sa.get(SA.FailureClass)]).toEqual(['failed', 'live', 'partner_unavailable']);
    }
  });

  test('pending: in flight for ten minutes, then failed with failure_class timeout', async () => {
    const r = await run({ metadata: { sandbox_outcome: 'pending' } });
    expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'failed', failureClass: 'timeout', at: expect.any(String) }]);
    const timer = onlyTimer(r.timeline);
    expectResumedAt(timer, afterCreation(r.draft, PENDING_TIMEOUT_MS));
    expect(timer.resumedAt).toBe(r.at);
    expect(r.result).toMatchObject({ status: 'failed', failureClass: 'timeout' });
  });

  test('indeterminate: unresolved until expires_at, then expired with timeout', async () => {
    const r = await run({ metadata: { sandbox_outcome: 'indeterminate' } });
    expect(r.activities).toEqual(['beginCharge', 'applyChargeTransition']);
    expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'expired', failureClass: 'timeout', at: expect.any(String) }]);
    const timer = onlyTimer(r.timeline);
    expectResumedAt(timer, r.draft.expiresAt);
    expect(timer.resumedAt).toBe(r.at);
    expect(r.result).toMatchObject({ status: 'expired', failureClass: 'timeout' });
  });

  test.each(FAILURE_CLASSES.map((c) => [c]))('%s: failed immediately with that failure_class', async (outcome) => {
    const r = await run({ metadata: { sandbox_outcome: outcome } });
    expect(r.activities).toEqual(['beginCharge', 'applyChargeTransition']);
    expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'failed', failureClass: outcome, at: expect.any(String) }]);
    // Immediately: no timer, and the whole run is its first workflow task.
    expect(r.timeline.timers).toEqual([]);
    expect(r.timeline.eventTypes.filter((t) => t === 'WORKFLOW_TASK_COMPLETED')).toHaveLength(1);
    expect(r.at).toBeGreaterThanOrEqual(r.timeline.taskTimes[0]);
    expect(r.result).toMatchObject({ status: 'failed', failureClass: outcome });
    const sa = await h.searchAttributes(r.draft.id);
    expect([sa.get(SA.PaymentStatus), sa.get(SA.FailureClass)]).toEqual(['failed', outcome]);
  });
});

describe('expiry', () => {
  test.each<[string, DraftOptions]>([
    ['succeed outcome, expires_at 1 s after creation (before the 3 s completion)', { lifetimeMs: 1_000 }],
    ['pending outcome, expires_at 5 min after creation (before the 10 min timeout)', { lifetimeMs: 5 * 60_000, metadata: { sandbox_outcome: 'pending' } }],
    ['expires_at already past at acceptance', { lifetimeMs: -60_000 }],
  ])('%s: expired at expires_at, no failure_class', async (_, options) => {
    const r = await run(options);
    expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'expired', failureClass: null, at: expect.any(String) }]);
    const timer = onlyTimer(r.timeline);
    if (options.lifetimeMs! > 0) expectResumedAt(timer, r.draft.expiresAt);
    else expect(timer.durationMs).toBe(1); // the shortest timer Temporal takes
    expect(timer.resumedAt).toBe(r.at);
    expect(r.result).toMatchObject({ status: 'expired', failureClass: null });
  });
});

describe('a run that starts late (issue 34: the workers behind a backlog): the rail\'s delays count from the charge\'s creation', () => {
  test('pending, run starting 6 min after creation: failed with timeout 10 min after creation (4 min of the run), not 10 min after its start', async () => {
    const r = await run({ metadata: { sandbox_outcome: 'pending' }, createdAgoMs: 6 * 60_000 });
    expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'failed', failureClass: 'timeout', at: expect.any(String) }]);
    const timer = onlyTimer(r.timeline);
    expectResumedAt(timer, afterCreation(r.draft, PENDING_TIMEOUT_MS));
    expect(timer.durationMs).toBeLessThanOrEqual(4 * 60_000);
  });

  test.each<[string, number]>([
    ['12 min (the ten minutes past, expires_at not yet)', 12 * 60_000],
    ['20 min (past expires_at too: the ten minutes came first)', 20 * 60_000],
  ])('pending, run starting %s after creation: failed with timeout at once, never expired', async (_, createdAgoMs) => {
    const r = await run({ metadata: { sandbox_outcome: 'pending' }, createdAgoMs });
    expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'failed', failureClass: 'timeout', at: expect.any(String) }]);
    expect(onlyTimer(r.timeline).durationMs).toBe(1); // the shortest timer Temporal takes
    expect(r.result).toMatchObject({ status: 'failed', failureClass: 'timeout' });
  });

  test('succeed, run starting 1 min after creation: succeeded at once (its three seconds are long past)', async () => {
    const r = await run({ createdAgoMs: 60_000 });
    expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'succeeded', failureClass: null, at: expect.any(String) }]);
    expect(onlyTimer(r.timeline).durationMs).toBe(1);
  });

  test('expires_at before the rail\'s answer still expires at expires_at (lifetime 5 min, pending, run starting 1 min late)', async () => {
    const r = await run({ metadata: { sandbox_outcome: 'pending' }, lifetimeMs: 5 * 60_000, createdAgoMs: 60_000 });
    expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'expired', failureClass: null, at: expect.any(String) }]);
    expectResumedAt(onlyTimer(r.timeline), r.draft.expiresAt);
  });
});

describe('chargeReversalWorkflow', () => {
  test('moves a succeeded charge to reversed, as a new run under the charge id', async () => {
    const { draft, result } = await run({});
    expect(result.status).toBe('succeeded');
    const requestedAt = new Date(await h.env.currentTimeMs()).toISOString();
    const handle = await h.startReversal(draft.id, requestedAt);
    expect(await handle.result()).toEqual({ ...result, status: 'reversed', updatedAt: requestedAt });
    expect(h.store.transitionsOf(draft.id).map((t) => [t.to, t.failureClass])).toEqual([['succeeded', null], ['reversed', null]]);
    expect(h.store.transitionsOf(draft.id)[1].at).toBe(requestedAt);
    expect((await h.searchAttributes(draft.id)).get(SA.PaymentStatus)).toBe('reversed');
    // The audit row is the transition's own (issue 31): the charge's merchant and environment.
    expect(auditLog.of(draft.id)).toEqual([
      expect.objectContaining({ action: 'charge.reverse', operator: 'test:operator', reason: 'workflow test reversal', merchantId: draft.merchantId, environment: draft.environment, after: expect.objectContaining({ status: 'reversed' }) }),
    ]);
  });

  test('a second reversal run on a reversed charge moves nothing and writes no second audit row (issue 31, finding 6)', async () => {
    const { draft } = await run({});
    await (await h.startReversal(draft.id, new Date(await h.env.currentTimeMs()).toISOString())).result();
    const again = await h.startReversal(draft.id, new Date(await h.env.currentTimeMs()).toISOString());
    expect(await again.result()).toMatchObject({ status: 'reversed' });
    expect(auditLog.of(draft.id)).toHaveLength(1);
  });

  test('a reversal run under another id than its charge, or for an id that is no charge, is refused: nothing moves, no row (issue 31, finding 6)', async () => {
    const { draft } = await run({});
    const input = { chargeId: draft.id, requestedAt: new Date(await h.env.currentTimeMs()).toISOString(), operator: 'ui:jane', reason: 'raw start' };
    const start = (workflowId: string, args: typeof input) => h.env.client.workflow.start<typeof chargeReversalWorkflow>('chargeReversalWorkflow', { workflowId, taskQueue: h.taskQueue, args: [args] });
    const elsewhere = await failureOf((await start(`rev-${draft.id}`, input)).result());
    expect(elsewhere).toMatchObject({ type: 'OperatorRequestRefused', message: expect.stringMatching(/a reversal runs only under its charge's id/) });
    const noCharge = await failureOf((await start('po_notacharge', { ...input, chargeId: 'po_notacharge' })).result());
    expect(noCharge).toMatchObject({ type: 'ChargeNotFoundError' });
    expect(h.store.charges.get(draft.id)?.status).toBe('succeeded');
    expect(auditLog.of(draft.id)).toEqual([]);
    expect(auditLog.of('po_notacharge')).toEqual([]);
  });

  test('a failed charge cannot be reversed: the run fails with TransitionRefusedError', async () => {
    const { draft } = await run({ metadata: { sandbox_outcome: 'declined' } });
    const handle = await h.startReversal(draft.id, new Date(await h.env.currentTimeMs()).toISOString());
    const error = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: 'TransitionRefusedError', nonRetryable: true });
    expect(h.store.transitionsOf(draft.id).map((t) => t.to)).toEqual(['failed', 'reversed']); // tried once, not retried
    expect(h.store.charges.get(draft.id)?.status).toBe('failed');
  });
});
