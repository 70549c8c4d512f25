/**
 * The second line of defence behind input validation (issue 7, defect 1): a charge whose record
 * PostgreSQL refuses for good (here a NUL in text, SQLSTATE 08P01) fails its workflow with a
 * non-retryable `DeterministicDatabaseError` instead of retrying the record step forever, and the
 * create call answers instead of hanging. Both bypass the API's validation on purpose.
 */
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { ChargeDraft } from '../../src/domain/charge';
import { ApiError } from '../../src/domain/errors';
import { DETERMINISTIC_DB_ERROR } from '../../src/persistence/db-errors';
import { buildChargeDraft, type ChargeRequest } from '../../src/services/charge-draft';
import type { Caller } from '../../src/services/context';
import { createCharge, requestHash } from '../../src/services/create-charge';
import { asServiceUnavailable } from '../../src/services/dependency-unavailable';
import { newId } from '../../src/support/new-id';
import type { chargeWorkflow } from '../../workflows/charge';
import { countRows } from '../support/db-counts';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';

let h: Harness;
let m: TestMerchant;
let caller: Caller;

beforeAll(async () => {
  h = await startHarness();
  m = await h.merchant();
  caller = { merchantId: m.id, environment: 'sandbox', keyId: 'key_test', merchantVerified: false };
});
afterAll(() => h?.close());

const poisoned = (): ChargeRequest => chargeBody({ customer: { identifier: '233241234567', name: 'Ama\u0000Mensah' } }) as unknown as ChargeRequest;

const poisonedDrafts: { name: string; draft: () => ChargeDraft }[] = [
  // PostgreSQL refuses a text parameter with a NUL (SQLSTATE 08P01, protocol violation).
  { name: 'a NUL in customer_name', draft: () => ({ ...buildChargeDraft(caller, newId('charge'), poisoned(), new Date()), sandboxOutcome: null }) },
  { name: 'a NUL in description', draft: () => ({ ...buildChargeDraft(caller, newId('charge'), chargeBody({ description: 'x\u0000' }) as unknown as ChargeRequest, new Date()), sandboxOutcome: null }) },
];

test.each(poisonedDrafts)('$name: the charge workflow fails with DeterministicDatabaseError after one attempt', async ({ draft: makeDraft }) => {
  const draft = makeDraft();
  const handle = await h.temporal.client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', {
    workflowId: draft.id,
    taskQueue: h.taskQueue,
    args: [draft],
  });

  const failure = await handle.result().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  // The local activity's failure, somewhere in the cause chain (the workflow may wrap it, e.g. in
  // an ActivityFailure or in its own "charge was never recorded" failure).
  const chain: unknown[] = [];
  for (let e: unknown = (failure as WorkflowFailedError).cause; e instanceof Error && chain.length < 10; e = e.cause) chain.push(e);
  const dbFailure = chain.find((e): e is ApplicationFailure => e instanceof ApplicationFailure && e.type === DETERMINISTIC_DB_ERROR);
  expect(dbFailure).toBeDefined();
  expect(dbFailure!.nonRetryable).toBe(true);
  expect(dbFailure!.message).toMatch(/\(SQLSTATE (22...|23...|08P01)\)/);

  // One attempt of the local activity, recorded in one marker: no retry loop.
  const history = await handle.fetchHistory();
  const markers = (history.events ?? []).filter((e) => e.markerRecordedEventAttributes);
  expect(markers).toHaveLength(1);
  expect(await countRows(h.orm, m.id)).toMatchObject({ charges: 0, events: 0, ledger_entries: 0 });
});

test('the create call with such a charge answers (500, not a hang and not a 503), and so does its retry', async () => {
  const request = poisoned();
  const key = idempotencyKey();
  const hash = requestHash('POST', '/v1/charges', request);
  const first = await createCharge(h.deps, caller, key, request, hash, 'req_test').then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(first).toBeDefined();
  expect(first).not.toBeInstanceOf(ApiError);
  // Not an outage: the API renders it as 500 internal_error (retrying would not help).
  expect(asServiceUnavailable(first)).toBe(first);
  const retry = await createCharge(h.deps, caller, key, request, hash, 'req_test').then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(retry).toBeDefined();
  expect(retry).not.toBeInstanceOf(ApiError);
  expect(asServiceUnavailable(retry)).toBe(retry);
  expect((await countRows(h.orm, m.id)).charges).toBe(0);
});
