/**
 * A charge's `expires_at` set by the merchant (issue 48; src/domain/charge-lifetime.ts): between 15
 * minutes and 24 hours after the create, answered in UTC, carried to the hosted checkout's link; a
 * value outside those bounds is refused with param `expires_at` and changes nothing, so the same
 * Idempotency-Key then takes a corrected request. Real API, database, Temporal and worker.
 */
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';

let h: Harness;
let merchant: TestMerchant;
const started: string[] = [];

const bank = (overrides: Record<string, unknown> = {}) =>
  chargeBody({ channel: 'bank', momo_network_id: undefined, amount: 20000, customer: { identifier: 'GH0012345678', name: 'Esi' }, ...overrides });
const create = async (body: Record<string, unknown>, key = idempotencyKey()) => {
  const res = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body, headers: { 'Idempotency-Key': key } });
  if (res.status === 200) started.push(res.json.id);
  return res;
};
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const HOUR = 3_600_000;

async function chargesWithReference(reference: string): Promise<number> {
  const [row] = await h.orm.em.fork().getConnection().execute<Array<{ n: string }>>(`select count(*) as n from charges where merchant_id = ? and your_reference = ?`, [merchant.id, reference]);
  return Number(row.n);
}

beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
  merchant = await h.merchant();
});
afterAll(async () => {
  for (const id of started) await h.temporal.client.workflow.getHandle(id).terminate('test finished').catch(() => undefined);
  await h?.close();
});

test('a day away: the charge waits for its customer until then; the answer, the stored charge and the checkout link all carry it, in UTC', async () => {
  const at = Date.now() + 24 * HOUR - 5_000;
  // Sent with an offset: the same instant comes back in UTC.
  const offset = new Date(at + 2 * HOUR).toISOString().replace('Z', '+02:00');
  const created = await create(bank({ expires_at: offset }));
  expect(created.status).toBe(200);
  expect(created.json).toMatchObject({ status: 'awaiting_action', expires_at: new Date(at).toISOString() });
  expect((await h.request('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key: merchant.testKey })).json.expires_at).toBe(new Date(at).toISOString());
  const [token] = await h.orm.em.fork().getConnection().execute<Array<{ expires_at: Date }>>(`select expires_at from checkout_tokens where charge_id = ?`, [created.json.id]);
  expect(new Date(token.expires_at).toISOString()).toBe(new Date(at).toISOString());
});

test('without expires_at the charge expires 15 minutes after its creation, as before', async () => {
  const created = await create(bank());
  expect(created.status).toBe(200);
  expect(Date.parse(created.json.expires_at) - Date.parse(created.json.created_at)).toBe(15 * 60_000);
});

test.each([
  ['ten minutes away', () => inMs(10 * 60_000), 'too soon'],
  ['in the past', () => inMs(-HOUR), 'too soon'],
  ['25 hours away', () => inMs(25 * HOUR), 'too late'],
])('%s: refused with param expires_at, nothing created; the same key then takes a corrected request', async (_name, when, why) => {
  const key = idempotencyKey();
  const reference = `expiry-${idempotencyKey().slice(0, 12)}`;
  const refused = await create(bank({ reference, expires_at: when() }), key);
  expect(refused.status).toBe(422);
  expect(refused.json.error).toMatchObject({ code: 'expires_at_out_of_range', param: 'expires_at' });
  expect(refused.json.error.message).toContain(why);
  expect(await chargesWithReference(reference)).toBe(0);
  const corrected = await create(bank({ reference, expires_at: inMs(2 * HOUR) }), key);
  expect(corrected.status).toBe(200);
  expect(await chargesWithReference(reference)).toBe(1);
});

test('not an RFC 3339 instant: refused by the schema, nothing created', async () => {
  const reference = `expiry-${idempotencyKey().slice(0, 12)}`;
  const refused = await create(bank({ reference, expires_at: 'tomorrow' }));
  expect(refused.status).toBe(400);
  expect(refused.json.error.code).toBe('invalid_request');
  expect(refused.json.error.message).toContain('expires_at');
  expect(await chargesWithReference(reference)).toBe(0);
});
