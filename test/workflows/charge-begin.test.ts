import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { COMPLETION_DELAY_MS } from '../../src/domain/sandbox-outcome';
import { startChargeTestEnv, type ChargeTestEnv, type DraftOptions } from './support/charge-env';
import { expectAimedAt, timelineOf } from './support/timeline';

// chargeWorkflow started as POST /v1/charges starts it now: the charge written first, the workflow
// given `{ chargeId }` only. Its first step loads the charge (beginCharge); nothing from the input
// but the id is trusted.

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

const T = temporal.api.enums.v1.EventType;

async function run(options: DraftOptions = {}) {
  const draft = await h.draft(options);
  const handle = await h.start(draft);
  const result = await handle.result();
  const history = await handle.fetchHistory();
  return { draft, result, history, activities: h.store.callsFor(draft.id).map((c) => c.activity), timeline: timelineOf(history) };
}

test('started with { chargeId }: begins from the stored charge, one timer, succeeds; no update in its history', async () => {
  const { draft, result, history, activities, timeline } = await run();
  expect(result).toMatchObject({ id: draft.id, status: 'succeeded' });
  expect(activities).toEqual(['beginCharge', 'applyChargeTransition']);
  const events = history.events ?? [];
  expect(events[0].workflowExecutionStartedEventAttributes?.input?.payloads).toHaveLength(1);
  expect(events.some((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)).toBe(false);
  expect(timeline.timers.map((t) => t.startedInTask)).toEqual([0]);
  expectAimedAt(timeline.timers[0], Date.parse(draft.createdAt) + COMPLETION_DELAY_MS);
});

test('the sandbox outcome comes from the stored metadata: declined fails at once, indeterminate expires unresolved', async () => {
  const declined = await run({ metadata: { sandbox_outcome: 'declined' } });
  expect(declined.result).toMatchObject({ status: 'failed', failureClass: 'declined' });
  expect(declined.timeline.timers).toEqual([]);
  const indeterminate = await run({ metadata: { sandbox_outcome: 'indeterminate' } });
  expect(indeterminate.result).toMatchObject({ status: 'expired', failureClass: 'timeout' });
});

test('a workflow started for a charge that was never written refuses to run: ChargeNotFoundError, nothing written', async () => {
  const draft = await h.draft();
  const handle = await h.start(draft, { write: false });
  const failure = await handle.result().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  const cause = (failure as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect(cause).toMatchObject({ type: 'ChargeNotFoundError', nonRetryable: true });
  expect(cause!.message).toMatch(/refuses to run/);
  expect(h.store.callsFor(draft.id).map((c) => c.activity)).toEqual(['beginCharge']);
  expect(h.store.charges.has(draft.id)).toBe(false);
});
