import { setTimeout as delay } from 'node:timers/promises';
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant } from '../support/harness';
import { allEvents, expectSucceededLedger, ledgerRows } from '../support/ledger-rows';

/**
 * Idempotency under concurrency, against the real API, PostgreSQL, Temporal dev server and an
 * in-process worker: many simultaneous creates with one Idempotency-Key converge on one charge, one
 * workflow, one set of ledger entries and one pair of events; simultaneous creates with different
 * keys get gap-free, duplicate-free event sequences.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

function create(merchant: TestMerchant, key: string, body: Record<string, unknown>): Promise<ApiResponse> {
  return h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body, headers: { 'Idempotency-Key': key } });
}

async function chargeIds(merchantId: string): Promise<string[]> {
  const rows = await h.orm.em.getConnection().execute<{ id: string }[]>(`select id from charges where merchant_id = ? order by id`, [merchantId]);
  return rows.map((r) => r.id);
}

/** Ids of the merchant's workflows in Temporal visibility (eventually consistent: bounded retries until `expected` show up). */
async function workflowIdsOf(merchantId: string, expected: string[]): Promise<string[]> {
  let ids: string[] = [];
  for (let attempt = 0; attempt < 40; attempt++) {
    ids = [];
    for await (const wf of h.temporal.client.workflow.list({ query: `MerchantId = "${merchantId}"` })) ids.push(wf.workflowId);
    if (expected.every((id) => ids.includes(id))) break;
    await delay(250);
  }
  return ids.sort();
}

test('50 concurrent creates with one Idempotency-Key and one body: one charge, one workflow, one ledger set, one pair of events', async () => {
  const merchant = await h.merchant();
  const key = idempotencyKey();
  const body = chargeBody({ amount: 23456, reference: 'order-concurrent', metadata: { order: 'C-1', nested: { b: 2, a: 1 } } });

  const responses = await Promise.all(Array.from({ length: 50 }, () => create(merchant, key, body)));

  const ok = responses.filter((r) => r.status === 200);
  const busy = responses.filter((r) => r.status === 409);
  expect(ok.length + busy.length).toBe(50);
  expect(ok.length).toBeGreaterThanOrEqual(1);
  for (const r of busy) expect(r.json.error).toMatchObject({ type: expect.any(String), code: 'idempotency_key_in_use' });
  // Every 200 carries the same bytes; exactly one is the original answer, the rest are replays.
  expect(new Set(ok.map((r) => r.text)).size).toBe(1);
  expect(ok.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
  const charge = ok[0].json;
  expect(charge).toMatchObject({ object: 'charge', status: 'awaiting_action', amount: 23456, your_reference: 'order-concurrent' });
  expect(charge.id).toMatch(/^txn_/);

  // One charge row, one key row pointing at it.
  expect(await chargeIds(merchant.id)).toEqual([charge.id]);
  const keys = await h.orm.em
    .getConnection()
    .execute<{ resource_id: string; state: string }[]>(`select resource_id, state from idempotency_keys where merchant_id = ?`, [merchant.id]);
  expect(keys).toEqual([{ resource_id: charge.id, state: 'done' }]);

  // One workflow: the visibility listing for the merchant holds only the charge id, and it is the charge workflow.
  expect(await workflowIdsOf(merchant.id, [charge.id])).toEqual([charge.id]);
  const description = await h.temporal.client.workflow.getHandle(charge.id).describe();
  expect(description.type).toBe('chargeWorkflow');
  expect(description.taskQueue).toBe(h.taskQueue);

  // Before completion: only the hold, and only transaction.created.
  const held = await ledgerRows(h, merchant.id);
  const pendingEvents = await allEvents(h, merchant);
  const settledYet = pendingEvents.some((e) => e.type === 'transaction.succeeded');
  if (!settledYet) {
    expect([...new Set(held.map((r) => r.transfer_id))]).toEqual([`${charge.id}:hold`]);
    expect(held.every((r) => r.n === '1')).toBe(true);
  }

  const final = await h.settled(charge.id);
  expect(final.status).toBe('succeeded');
  expectSucceededLedger(await ledgerRows(h, merchant.id), charge);

  const log = await allEvents(h, merchant);
  expect(log.map((e) => [e.type, e.sequence, e.resource_id])).toEqual([
    ['transaction.created', 1, charge.id],
    ['transaction.succeeded', 2, charge.id],
  ]);

  const balances = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  expect(balances.json).toMatchObject({ available: [{ currency: 'GHS', amount: charge.merchant_amount }], pending: [{ currency: 'GHS', amount: 0 }] });

  // A retry after the charge completed: the first answer, byte for byte, marked as replayed.
  const retry = await create(merchant, key, body);
  expect(retry.status).toBe(200);
  expect(retry.text).toBe(ok[0].text);
  expect(retry.headers.get('idempotent-replayed')).toBe('true');
  // The same key with another body is refused and creates nothing.
  const reused = await create(merchant, key, { ...body, amount: 23457 });
  expect(reused.status).toBe(422);
  expect(reused.json.error.code).toBe('idempotency_key_reused');
  expect(await chargeIds(merchant.id)).toEqual([charge.id]);
  expect(await workflowIdsOf(merchant.id, [charge.id])).toEqual([charge.id]);
});

test('a key whose first request is still in flight answers 409 idempotency_key_in_use, then the first answer', async () => {
  const merchant = await h.merchant();
  const key = idempotencyKey();
  const body = chargeBody({ reference: 'order-in-flight' });
  await h.stopWorker();
  let first: Promise<ApiResponse> | undefined;
  try {
    // Without a worker the first request blocks in update-with-start while holding the key.
    first = create(merchant, key, body);
    let claimed = false;
    for (let attempt = 0; attempt < 100 && !claimed; attempt++) {
      const rows = await h.orm.em.getConnection().execute<{ state: string }[]>(`select state from idempotency_keys where merchant_id = ? and key = ?`, [merchant.id, key]);
      claimed = rows.length === 1;
      if (!claimed) await delay(50);
    }
    expect(claimed).toBe(true);

    const others = await Promise.all(Array.from({ length: 10 }, () => create(merchant, key, body)));
    expect(others.map((r) => [r.status, r.json?.error?.code])).toEqual(Array.from({ length: 10 }, () => [409, 'idempotency_key_in_use']));
    expect(await chargeIds(merchant.id)).toEqual([]);
  } finally {
    await h.startWorker();
  }
  const answer = await first!;
  expect(answer.status).toBe(200);
  expect(answer.headers.get('idempotent-replayed')).toBeNull();
  const replay = await create(merchant, key, body);
  expect(replay.status).toBe(200);
  expect(replay.text).toBe(answer.text);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(await chargeIds(merchant.id)).toEqual([answer.json.id]);
  expect((await h.settled(answer.json.id)).status).toBe('succeeded');
  expect((await allEvents(h, merchant)).map((e) => [e.type, e.sequence])).toEqual([
    ['transaction.created', 1],
    ['transaction.succeeded', 2],
  ]);
});

test('20 concurrent charges with different keys for one merchant: 40 events, sequences exactly 1..40', async () => {
  const merchant = await h.merchant();
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) => create(merchant, idempotencyKey(), chargeBody({ amount: 10_000 + i * 137, reference: `order-${i}` }))),
  );
  expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
  const charges = responses.map((r) => r.json);
  const ids = charges.map((c) => c.id as string);
  expect(new Set(ids).size).toBe(20);
  expect(await chargeIds(merchant.id)).toEqual([...ids].sort());

  const finals = await Promise.all(ids.map((id) => h.settled(id)));
  expect(finals.map((f) => f.status)).toEqual(Array.from({ length: 20 }, () => 'succeeded'));

  const log = await allEvents(h, merchant);
  expect(log).toHaveLength(40);
  expect(log.map((e) => e.sequence)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  expect(new Set(log.map((e) => e.id)).size).toBe(40);
  for (const id of ids) {
    const mine = log.filter((e) => e.resource_id === id);
    expect(mine.map((e) => e.type)).toEqual(['transaction.created', 'transaction.succeeded']);
  }

  const rows = await ledgerRows(h, merchant.id);
  for (const charge of charges) expectSucceededLedger(rows, charge);
  expect(new Set(rows.map((r) => r.resource_id))).toEqual(new Set(ids));

  const balances = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  const expected = charges.reduce((sum, c) => sum + (c.merchant_amount as number), 0);
  expect(balances.json).toMatchObject({ available: [{ currency: 'GHS', amount: expected }], pending: [{ currency: 'GHS', amount: 0 }] });
  expect(await workflowIdsOf(merchant.id, ids)).toEqual([...ids].sort());
});

test('a key whose holder died is taken over once its lock lapses and converges on the same charge and workflow', async () => {
  const merchant = await h.merchant();
  const expireLock = (key: string) =>
    h.orm.em.getConnection().execute(`update idempotency_keys set locked_until = now() - interval '1 second' where merchant_id = ? and key = ?`, [merchant.id, key]);

  // (1) The holder is stuck before any answer (no worker) and its lock lapses: a retry takes the key
  // over with the same charge id, and both land on the one workflow and the one acceptance.
  const key = idempotencyKey();
  const body = chargeBody({ reference: 'order-takeover' });
  await h.stopWorker();
  let stuck: Promise<ApiResponse> | undefined;
  let takeover: Promise<ApiResponse> | undefined;
  try {
    stuck = create(merchant, key, body);
    let resourceId: string | undefined;
    for (let attempt = 0; attempt < 100 && !resourceId; attempt++) {
      const rows = await h.orm.em.getConnection().execute<{ resource_id: string }[]>(`select resource_id from idempotency_keys where merchant_id = ? and key = ?`, [merchant.id, key]);
      resourceId = rows[0]?.resource_id;
      if (!resourceId) await delay(50);
    }
    expect(resourceId).toMatch(/^txn_/);
    await expireLock(key);
    takeover = create(merchant, key, body);
    // Once the takeover has renewed the lock, a third attempt is told the key is in use.
    let renewed = false;
    for (let attempt = 0; attempt < 100 && !renewed; attempt++) {
      const [row] = await h.orm.em.getConnection().execute<{ fresh: boolean }[]>(`select locked_until > now() as fresh from idempotency_keys where merchant_id = ? and key = ?`, [merchant.id, key]);
      renewed = row.fresh;
      if (!renewed) await delay(50);
    }
    expect(renewed).toBe(true);
    const busy = await create(merchant, key, body);
    expect(busy.status).toBe(409);
    expect(busy.json.error.code).toBe('idempotency_key_in_use');
  } finally {
    await h.startWorker();
  }
  const [a, b] = await Promise.all([stuck!, takeover!]);
  expect([a.status, b.status]).toEqual([200, 200]);
  expect(b.text).toBe(a.text);
  expect(await chargeIds(merchant.id)).toEqual([a.json.id]);
  expect(await workflowIdsOf(merchant.id, [a.json.id])).toEqual([a.json.id]);
  expect((await h.settled(a.json.id)).status).toBe('succeeded');

  // (2) The workflow ran to the end but the answer was never stored (the API died after starting it):
  // after the lock lapses a retry takes the key over with the same charge id; update-with-start on the
  // closed workflow returns the stored outcome of its 'accept' update, so the answer is the original
  // acceptance, byte for byte, and nothing new is created.
  const key2 = idempotencyKey();
  const body2 = chargeBody({ amount: 17000, reference: 'order-lost-answer' });
  const original = await create(merchant, key2, body2);
  expect(original.status).toBe(200);
  expect((await h.settled(original.json.id)).status).toBe('succeeded');
  await h.orm.em
    .getConnection()
    .execute(`update idempotency_keys set state = 'in_flight', response_status = null, response_body = null where merchant_id = ? and key = ?`, [merchant.id, key2]);
  await expireLock(key2);
  const recovered = await create(merchant, key2, body2);
  expect(recovered.status).toBe(200);
  expect(recovered.text).toBe(original.text);
  const replay = await create(merchant, key2, body2);
  expect([replay.status, replay.headers.get('idempotent-replayed'), replay.text]).toEqual([200, 'true', recovered.text]);

  const ids = [a.json.id, original.json.id].sort();
  expect(await chargeIds(merchant.id)).toEqual(ids);
  expect(await workflowIdsOf(merchant.id, ids)).toEqual(ids);
  expect((await allEvents(h, merchant)).map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
});
