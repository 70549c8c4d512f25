import { setTimeout as delay } from 'node:timers/promises';
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { allEvents, expectSucceededLedger, ledgerRows } from '../support/ledger-rows';
import { requestHash } from '../../src/services/create-charge';
import { newId } from '../../src/support/new-id';

/**
 * Idempotency under concurrency, against the real API, PostgreSQL, Temporal dev server and an
 * in-process worker: many simultaneous creates with one Idempotency-Key converge on one charge, one
 * workflow, one set of ledger entries and one pair of events; simultaneous creates with different
 * keys get gap-free, duplicate-free event sequences.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
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
  expect(description.taskQueue).toBe(`${h.taskQueue}-sandbox`);

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
  // The first request's one transaction is held open: the test holds (uncommitted) the event counter
  // row its transaction.created needs, so it waits there with the key claimed.
  const held = h.orm.em.fork();
  await held.begin();
  let first: Promise<ApiResponse> | undefined;
  try {
    await held.execute(`insert into event_counters (merchant_id, environment, last_sequence) values (?, 'sandbox', 0)`, [merchant.id]);
    first = create(merchant, key, body);
    let waiting = false;
    for (let attempt = 0; attempt < 100 && !waiting; attempt++) {
      const [row] = await h.orm.em
        .getConnection()
        .execute<{ n: number }[]>(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%event_counters%'`);
      waiting = row.n >= 1;
      if (!waiting) await delay(50);
    }
    expect(waiting).toBe(true);

    const others = await Promise.all(Array.from({ length: 10 }, () => create(merchant, key, body)));
    expect(others.map((r) => [r.status, r.json?.error?.code])).toEqual(Array.from({ length: 10 }, () => [409, 'idempotency_key_in_use']));
    expect(await chargeIds(merchant.id)).toEqual([]);
  } finally {
    await held.rollback();
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

test('a key left in flight by a create of the older path (update-with-start) is taken over once its lock lapses, with its charge id', async () => {
  // A create today claims, answers and writes in one transaction, so it never leaves a claim behind;
  // a create of the older path could (it claimed first, then waited for its workflow). Its claim is
  // written here as that create left it.
  const merchant = await h.merchant();
  const legacyClaim = (key: string, body: Record<string, unknown>, resourceId: string) =>
    h.orm.em.getConnection().execute(
      `insert into idempotency_keys (merchant_id, environment, key, request_hash, resource_id, state, locked_until)
       values (?, 'sandbox', ?, ?, ?, 'in_flight', now() + interval '1 minute')`,
      [merchant.id, key, requestHash('POST', '/v1/charges', body), resourceId],
    );
  const expireLock = (key: string) =>
    h.orm.em.getConnection().execute(`update idempotency_keys set locked_until = now() - interval '1 second' where merchant_id = ? and key = ?`, [merchant.id, key]);

  // (1) The holder died before its workflow wrote anything: while its lock holds, 409; once it
  // lapses, a retry takes the key over and writes the charge under the claimed charge id.
  const key = idempotencyKey();
  const body = chargeBody({ reference: 'order-takeover' });
  const claimedId = newId('charge');
  await legacyClaim(key, body, claimedId);
  const busy = await create(merchant, key, body);
  expect([busy.status, busy.json.error.code]).toEqual([409, 'idempotency_key_in_use']);
  await expireLock(key);
  const taken = await create(merchant, key, body);
  expect(taken.status).toBe(200);
  expect(taken.json.id).toBe(claimedId);
  expect((await h.settled(claimedId)).status).toBe('succeeded');
  const replay = await create(merchant, key, body);
  expect([replay.status, replay.headers.get('idempotent-replayed'), replay.text]).toEqual([200, 'true', taken.text]);

  // (2) The holder's charge was written (by its workflow) but the answer never stored: the takeover
  // answers with the charge as stored and writes nothing again.
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
  expect(recovered.json).toMatchObject({ id: original.json.id, status: 'succeeded' });
  const replay2 = await create(merchant, key2, body2);
  expect([replay2.status, replay2.headers.get('idempotent-replayed'), replay2.text]).toEqual([200, 'true', recovered.text]);

  const ids = [claimedId, original.json.id].sort();
  expect(await chargeIds(merchant.id)).toEqual(ids);
  expect(await workflowIdsOf(merchant.id, ids)).toEqual(ids);
  expect((await allEvents(h, merchant)).map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
});
