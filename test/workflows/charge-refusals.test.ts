import { CHARGE_PATCHES_AS_ONE_PATCH, CHARGE_PATCHES_IN_ONE } from '../../workflows/charge-patches';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../workers/workflow-bundle';
import { ApplicationFailure } from '@temporalio/common';
import { CHARGE_INPUT_REFUSED, NO_LIVE_SIMULATOR_PATCH, TRUST_ONLY_THE_DATABASE_PATCH } from '../../src/domain/charge-start';
import { chargeSearchAttributePairs } from '../../src/domain/search-attributes';
import { LIVE_PARTNER_RAIL_PATCH } from '../../src/domain/live-rail';
import { chargeStartOptions } from '../../src/temporal/charge-start';
import { newId } from '../../src/support/new-id';
import type { chargeWorkflow } from '../../workflows/charge';
import { startChargeTestEnv, type ChargeTestEnv } from './support/charge-env';

// Issue 9, defence in depth: a charge workflow trusts no input it could read from the database. Anyone
// who reaches Temporal can start `chargeWorkflow`; a run not started for a record the API wrote
// refuses to run, non-retryably, and writes nothing. A run started again for a finished charge
// moves nothing.

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

async function failureOf(handle: WorkflowHandle): Promise<ApplicationFailure> {
  const error = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

test('an invented live draft as input (the old update-with-start shape): refused at once, nothing recorded', async () => {
  const draft = await h.draft({ environment: 'live' });
  await h.env.client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', {
    workflowId: draft.id,
    taskQueue: h.taskQueue,
    args: [draft],
    typedSearchAttributes: chargeSearchAttributePairs(draft),
  });
  const failure = await failureOf(h.env.client.workflow.getHandle(draft.id));
  expect(failure).toMatchObject({ type: CHARGE_INPUT_REFUSED, nonRetryable: true });
  expect(failure.message).toMatch(/takes \{ chargeId \} of a charge the API wrote/);
  expect(h.store.callsFor(draft.id)).toEqual([]);
  expect(h.store.charges.has(draft.id)).toBe(false);
});

test('the same draft through update-with-start: the update fails, the run refuses, nothing recorded', async () => {
  const draft = await h.draft({ environment: 'live' });
  await expect(h.accept(draft)).rejects.toThrow();
  expect(await failureOf(h.env.client.workflow.getHandle(draft.id))).toMatchObject({ type: CHARGE_INPUT_REFUSED, nonRetryable: true });
  expect(h.store.callsFor(draft.id)).toEqual([]);
});

test('a workflow id other than the charge id: refused before loading anything', async () => {
  const draft = await h.draft();
  const { sandboxOutcome: _, ...record } = draft;
  h.store.write(record);
  const handle = await h.env.client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', { ...chargeStartOptions(record, h.taskQueue), workflowId: newId('charge') });
  const failure = await failureOf(handle);
  expect(failure).toMatchObject({ type: CHARGE_INPUT_REFUSED, nonRetryable: true });
  expect(failure.message).toMatch(/runs only under its charge's id/);
  expect(h.store.callsFor(draft.id)).toEqual([]);
  expect(h.store.charges.get(draft.id)?.status).toBe('awaiting_action');
});

test('search attributes naming another merchant or environment than the stored charge: refused, no transition', async () => {
  for (const other of [{ merchantId: 'mer_other' }, { environment: 'live' as const }]) {
    const draft = await h.draft();
    const { sandboxOutcome: _, ...record } = draft;
    h.store.write(record);
    const handle = await h.env.client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', {
      ...chargeStartOptions(record, h.taskQueue),
      typedSearchAttributes: chargeSearchAttributePairs({ ...record, ...other }),
    });
    const failure = await failureOf(handle);
    expect(failure).toMatchObject({ type: CHARGE_INPUT_REFUSED, nonRetryable: true });
    expect(failure.message).toMatch(/the stored charge belongs to mer_test in sandbox/);
    expect(h.store.callsFor(draft.id).map((c) => c.activity)).toEqual(['beginCharge']);
    expect(h.store.charges.get(draft.id)?.status).toBe('awaiting_action');
  }
});

test.each([
  ['succeeded', {}],
  ['failed', { sandbox_outcome: 'declined' }],
])('started again after its first run finished a %s charge: answers the stored state, no transition', async (status, metadata) => {
  const draft = await h.draft({ metadata });
  await h.start(draft);
  const first = await h.settle(draft.id);
  expect(first.status).toBe(status);
  const again = await h.env.client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', {
    ...chargeStartOptions(h.store.charges.get(draft.id)!, h.taskQueue),
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
  expect(await again.result()).toEqual(first);
  expect(h.store.callsFor(draft.id).map((c) => c.activity)).toEqual(['beginCharge', 'applyChargeTransition', 'beginCharge']);
});

test('a run recorded with these checks carries their patch markers and replays under its charge id', async () => {
  for (const environment of ['sandbox', 'live'] as const) {
    const draft = await h.draft({ environment });
    const handle = await h.start(draft);
    await handle.result();
    const history = await handle.fetchHistory();
    const patches = (history.events ?? [])
      .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
      .flatMap((e) => Object.values(e.markerRecordedEventAttributes!.details ?? {}).flatMap((p) => p.payloads ?? []))
      .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
      .join(' ');
    // Issue 48: a new run carries one marker, which stands for these checks (workflows/charge-patches.ts).
    expect(patches).toContain(CHARGE_PATCHES_AS_ONE_PATCH);
    expect(CHARGE_PATCHES_IN_ONE.has(TRUST_ONLY_THE_DATABASE_PATCH)).toBe(true);
    // A new live run takes the partner rail (issue 20); runs recorded before it carry no-live-simulator.
    if (environment === 'live') expect(CHARGE_PATCHES_IN_ONE.has(LIVE_PARTNER_RAIL_PATCH)).toBe(true);
    if (environment === 'live') expect(CHARGE_PATCHES_IN_ONE.has(NO_LIVE_SIMULATOR_PATCH)).toBe(false);
    if (environment === 'live') expect(patches).not.toContain(NO_LIVE_SIMULATOR_PATCH);
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, draft.id)).resolves.toBeUndefined();
  }
});
