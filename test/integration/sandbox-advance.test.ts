/**
 * POST /v1/sandbox/advance/{id} (INTERFACE "Sandbox controls") through HTTP, against the real
 * Temporal dev server and PostgreSQL: a charge with the `pending` outcome fails with `timeout` at
 * once instead of in ten minutes; the history shows the signal won; a charge waiting on nothing is
 * 409 nothing_to_advance; another merchant's id, another environment's, an unknown or malformed one
 * is 404; the live listener has no such route; the resource's write scope is required.
 */
import { temporal } from '@temporalio/proto';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { expectError } from '../support/api-errors';
import { issueKey } from '../../src/persistence/merchants/merchant-store';

let h: Harness;
let merchant: TestMerchant;
const T = temporal.api.enums.v1.EventType;

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  merchant = await h.merchant();
});
afterAll(() => h?.close());

async function createCharge(metadata: Record<string, unknown>): Promise<{ id: string; status: string }> {
  const res = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body: chargeBody({ metadata }), headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(res.status).toBe(200);
  return res.json;
}

const advance = (id: string, key = merchant.testKey, env: 'sandbox' | 'live' = 'sandbox') => h.request(env, 'POST', `/v1/sandbox/advance/${id}`, { key });

/** The charge workflow waits on its timer once it began: retried until then (it answers 409 before). */
async function advanceWhenWaiting(id: string) {
  for (let i = 0; i < 50; i++) {
    const res = await advance(id);
    if (res.status !== 409) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${id} never waited on a timer`);
}

test('a pending charge: advance fires the ten-minute timeout now, answers the failed charge, and the history shows the signal won', async () => {
  const charge = await createCharge({ sandbox_outcome: 'pending' });
  const res = await advanceWhenWaiting(charge.id);
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ id: charge.id, fired: 'sandbox pending outcome: ten minutes, then timeout', status: 'failed' });
  expect(await h.settled(charge.id)).toMatchObject({ status: 'failed', failureClass: 'timeout' });
  const got = await h.request('sandbox', 'GET', `/v1/charges/${charge.id}`, { key: merchant.testKey });
  expect(got.json).toMatchObject({ status: 'failed', failure_class: 'timeout' });

  const events = (await h.temporal.client.workflow.getHandle(charge.id).fetchHistory()).events ?? [];
  const types = events.map((e) => e.eventType);
  expect(types).toContain(T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
  expect(types).toContain(T.EVENT_TYPE_TIMER_CANCELED);
  expect(types).not.toContain(T.EVENT_TYPE_TIMER_FIRED);

  // Finished: nothing waits any more.
  expectError(await advance(charge.id), 409, 'nothing_to_advance', 'id');
});

test('a charge that failed at once waits on nothing: 409 nothing_to_advance', async () => {
  const charge = await createCharge({ sandbox_outcome: 'insufficient_funds' });
  await h.settled(charge.id);
  expectError(await advance(charge.id), 409, 'nothing_to_advance', 'id');
});

test('another merchant\'s charge, an unknown id, a malformed id and an id of no payment resource are 404', async () => {
  const charge = await createCharge({ sandbox_outcome: 'pending' });
  const other = await h.merchant();
  expectError(await advance(charge.id, other.testKey), 404, 'not_found', 'id');
  expectError(await advance('txn_000000000000000000000000'), 404, 'not_found', 'id');
  expectError(await advance('po_000000000000000000000000'), 404, 'not_found', 'id');
  expectError(await advance('re_000000000000000000000000'), 404, 'not_found', 'id');
  expectError(await advance('txn_short'), 404, 'not_found', 'id');
  expectError(await advance('we_000000000000000000000000'), 404, 'not_found', 'id');
  // Still pending: nothing above touched it.
  expect((await h.request('sandbox', 'GET', `/v1/charges/${charge.id}`, { key: merchant.testKey })).json.status).toMatch(/pending|awaiting_action/);
  await h.temporal.client.workflow.getHandle(charge.id).terminate('test finished');
});

test('the live listener has no sandbox controls: 404', async () => {
  const verified = await h.merchant({ verified: true });
  expectError(await advance('txn_000000000000000000000000', verified.liveKey, 'live'), 404, 'not_found');
});

test('a key without charges:write cannot advance a charge: 403 insufficient_scope', async () => {
  const charge = await createCharge({ sandbox_outcome: 'pending' });
  const key = await issueKey(h.orm, merchant.id, 'sandbox', ['charges:read']);
  expectError(await advance(charge.id, key.secret), 403, 'insufficient_scope');
  await h.temporal.client.workflow.getHandle(charge.id).terminate('test finished');
});
