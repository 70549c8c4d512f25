/**
 * The lines of defence behind input validation (issue 7, defect 1) against a charge PostgreSQL refuses
 * for good (here a NUL in text). Since the API writes the charge itself (issue 8), such a charge can
 * no longer reach a workflow through the API: validation refuses it (400), and a create that bypasses
 * validation fails its one database transaction with a class 22 / 08P01 error and writes nothing (not
 * a 503, not a hang). A run started the older way, with the whole draft as input, is refused before any
 * database step (issue 9: workflows trust only the record the API wrote); the non-retryable
 * `DeterministicDatabaseError` of charge steps stays covered by test/workflows/charge-attention.test.ts,
 * test/integration/balances.test.ts and the replay fixtures.
 */
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { ChargeDraft } from '../../src/domain/charge';
import { CHARGE_INPUT_REFUSED } from '../../src/domain/charge-start';
import { ApiError } from '../../src/domain/errors';
import { isDeterministicDbError, sqlStateOf } from '../../src/persistence/db-errors';
import { buildChargeDraft, type ChargeRequest } from '../../src/services/charge-draft';
import type { Caller } from '../../src/services/context';
import { createCharge, requestHash } from '../../src/services/create-charge';
import { asServiceUnavailable } from '../../src/services/dependency-unavailable';
import { newId } from '../../src/support/new-id';
import type { chargeWorkflow } from '../../workflows/charge';
import { countRows } from '../support/db-counts';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';

let h: Harness;
let m: TestMerchant;
let caller: Caller;

beforeAll(async () => {
  // The older create path's run starts on the base (legacy) queue.
  h = await startHarness({ queues: [...SANDBOX_QUEUES, 'legacy'] });
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

test.each(poisonedDrafts)('$name: a run started with the whole draft (the older create path) is refused before any database step (issue 9)', async ({ draft: makeDraft }) => {
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
  const cause = (failure as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe(CHARGE_INPUT_REFUSED);
  expect((cause as ApplicationFailure).nonRetryable).toBe(true);

  // No local activity ran: the poison never reached PostgreSQL, and nothing was written.
  const history = await handle.fetchHistory();
  const activityMarkers = (history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  expect(activityMarkers).toHaveLength(0);
  expect(await countRows(h.orm, m.id)).toMatchObject({ charges: 0, events: 0, ledger_entries: 0 });
});

test('through the API, validation refuses a NUL: 400, nothing written', async () => {
  const response = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: poisoned(), headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(response.status).toBe(400);
  expect(await countRows(h.orm, m.id)).toMatchObject({ charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 });
});

test('a create that bypasses validation fails its one transaction (SQLSTATE class 22 or 08P01) and writes nothing, nor does its retry', async () => {
  const request = poisoned();
  const key = idempotencyKey();
  const hash = requestHash('POST', '/v1/charges', request);
  for (let attempt = 0; attempt < 2; attempt++) {
    const failure = await createCharge(h.deps, caller, key, request, hash, 'req_test').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeDefined();
    expect(failure).not.toBeInstanceOf(ApiError);
    expect(isDeterministicDbError(failure)).toBe(true);
    expect(sqlStateOf(failure)).toMatch(/^(22...|08P01)$/);
    // Not an outage: the API renders it as 500 internal_error (retrying would not help).
    expect(asServiceUnavailable(failure)).toBe(failure);
    // Nothing at all: no charge, no hold, no event, no sequence number, not even the key's claim.
    expect(await countRows(h.orm, m.id)).toMatchObject({ charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 });
  }
});
