/**
 * The create path of issue 8, write first, then start, against the real API, PostgreSQL and Temporal
 * dev server: a create is ONE database transaction (the idempotency key with its stored answer, the
 * charge, its hold, `transaction.created`) and ONE workflow start whose input is the charge id only;
 * the workflow's first step reads the charge from the database, and refuses to run for a charge the
 * API never wrote.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { ChargeRecord } from '../../src/domain/charge';
import { newId } from '../../src/support/new-id';
import { chargeStartOptions } from '../../src/temporal/charge-start';
import type { chargeWorkflow } from '../../workflows/charge';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { decodedJson } from '../support/payload-codec';

let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  m = await h.merchant();
});
afterAll(() => h?.close());

const sql = <T>(query: string, params: unknown[]) => h.orm.em.getConnection().execute<T[]>(query, params);
const T = temporal.api.enums.v1.EventType;

test('a create is one database transaction and one workflow start with { chargeId }; the workflow begins from the row', async () => {
  const key = idempotencyKey();
  const created = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody({ reference: 'one-tx' }), headers: { 'Idempotency-Key': key } });
  expect(created.status).toBe(200);
  const chargeId: string = created.json.id;

  // Every row the create wrote carries the same transaction id (xmin): one commit. The stored
  // answer is the response, byte for byte, committed with the charge.
  const [stored] = await sql<{ xmin: string; state: string; response_status: number; response_body: string }>(
    `select xmin::text, state, response_status, response_body from idempotency_keys where merchant_id = ? and key = ?`,
    [m.id, key],
  );
  expect({ state: stored.state, status: stored.response_status, body: stored.response_body }).toEqual({ state: 'done', status: 200, body: created.text });
  const written = await sql<{ what: string; xmin: string }>(
    `select 'charge' as what, xmin::text from charges where id = ?
     union all select 'ledger', xmin::text from ledger_entries where resource_id = ?
     union all select 'balance', xmin::text from account_balances where merchant_id = ?
     union all select 'event', xmin::text from events where resource_id = ?
     union all select 'counter', xmin::text from event_counters where merchant_id = ?`,
    [chargeId, chargeId, m.id, chargeId, m.id],
  );
  expect(new Set(written.map((w) => w.what))).toEqual(new Set(['charge', 'ledger', 'balance', 'event', 'counter']));
  // The charge row is touched once more after the start succeeded, to confirm it (workflow_started_at,
  // so the charge-start relay never repeats that start); every other row is as the create's commit left it.
  expect(written.filter((w) => w.what !== 'charge' && w.xmin !== stored.xmin)).toEqual([]);
  const [confirmation] = await sql<{ started: boolean; xmin: string }>(`select workflow_started_at is not null as started, xmin::text from charges where id = ?`, [chargeId]);
  expect(confirmation.started).toBe(true);
  const [{ n }] = await sql<{ n: string }>(`select count(*)::text as n from charges where id = ?`, [chargeId]);
  expect(n).toBe('1');

  // One workflow start, with the charge id as its only input, and no update (no worker yet).
  const handle = h.temporal.client.workflow.getHandle<typeof chargeWorkflow>(chargeId);
  const before = await handle.fetchHistory();
  const startedEvent = before.events![0].workflowExecutionStartedEventAttributes!;
  expect(startedEvent.workflowType?.name).toBe('chargeWorkflow');
  expect(await decodedJson(startedEvent.input!.payloads![0])).toEqual({ chargeId });
  const description = await handle.describe();
  expect(description.typedSearchAttributes.getAll().map((p) => p.key.name)).toEqual(expect.arrayContaining(['MerchantId', 'PaymentStatus', 'Amount']));

  await h.startWorker();
  try {
    expect((await h.settled(chargeId)).status).toBe('succeeded');
  } finally {
    await h.stopWorker();
  }
  const events = (await handle.fetchHistory()).events ?? [];
  expect(events.filter((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)).toHaveLength(1);
  expect(events.some((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)).toBe(false);
  const markers = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  // The first step's local activity marker: its data payload names the activity.
  // History holds the marker encrypted (src/temporal/payload-codec.ts): decode it with the suite's key.
  const marker = (await decodedJson(markers[0].markerRecordedEventAttributes!.details!.data!.payloads![0])) as { activity_type: string };
  expect(marker.activity_type).toBe('beginCharge');
  expect(await sql(`select workflow_started_at is not null as started from charges where id = ?`, [chargeId])).toEqual([{ started: true }]);
});

test('a charge workflow started by hand for a charge id with no row refuses to run: ChargeNotFoundError, nothing written', async () => {
  const chargeId = newId('charge');
  const phantom = { id: chargeId, merchantId: m.id, environment: 'sandbox', status: 'awaiting_action', channel: 'mobile_money', currency: 'GHS', amount: 1, failureClass: null } as ChargeRecord;
  const handle = await h.temporal.client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', chargeStartOptions(phantom, h.taskQueue));
  await h.startWorker();
  try {
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: 'ChargeNotFoundError', nonRetryable: true });
    expect(cause!.message).toMatch(/refuses to run/);
  } finally {
    await h.stopWorker();
  }
  // One attempt of the begin step, nothing written.
  const markers = ((await handle.fetchHistory()).events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  expect(markers).toHaveLength(1);
  expect(await sql(`select id from charges where id = ?`, [chargeId])).toEqual([]);
  expect(await sql(`select id from events where resource_id = ?`, [chargeId])).toEqual([]);
});
