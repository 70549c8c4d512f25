import type { EntityManager } from '@mikro-orm/postgresql';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';

/**
 * A lock held past the API's `lock_timeout` (issue 34's stop: a chaos run paused a worker while it
 * held a merchant's event counter, and two creates answered 500): the create answers 503
 * `service_unavailable` with Retry-After, nothing of it stays, and the same request with the same
 * Idempotency-Key succeeds once the lock is gone.
 */
let h: Harness;
let m: TestMerchant;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  m = await h.merchant();
  // The merchant's event counter row exists once it has an event.
  expect((await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody(), headers: { 'idempotency-key': idempotencyKey() } })).status).toBe(200);
});
afterAll(async () => {
  await closeWithLedgerCheck(h);
});

test('a create that waits past lock_timeout on the merchant\'s event counter: 503 with Retry-After, nothing kept; the same key later succeeds once', async () => {
  const key = idempotencyKey();
  const body = chargeBody();
  const charges = async () => (await h.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from charges where merchant_id = ?`, [m.id]))[0].n;
  const before = await charges();
  const em = h.orm.em.fork() as EntityManager;
  await em.begin();
  let busy;
  try {
    await em.execute(`select 1 from event_counters where merchant_id = ? and environment = 'sandbox' for update`, [m.id]);
    busy = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body, headers: { 'idempotency-key': key } });
  } finally {
    await em.rollback();
  }
  expect(busy.status).toBe(503);
  expect(busy.json.error ?? busy.json).toMatchObject({ code: 'service_unavailable' });
  expect(busy.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(await charges()).toBe(before);

  const again = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body, headers: { 'idempotency-key': key } });
  expect(again.status).toBe(200);
  expect(await charges()).toBe(before + 1);
  // And once more: the key's first answer, no second charge.
  const replay = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body, headers: { 'idempotency-key': key } });
  expect(replay.json.id).toBe(again.json.id);
  expect(await charges()).toBe(before + 1);
}, 60_000);
