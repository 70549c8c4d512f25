import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';

let h: Harness;
let merchant: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
  merchant = await h.merchant();
});
afterAll(() => h?.close());

async function create(body: Record<string, unknown>, key = merchant.testKey) {
  return h.request('sandbox', 'POST', '/v1/charges', { key, body, headers: { 'Idempotency-Key': idempotencyKey() } });
}

test('a mobile-money charge is awaiting_action with a prompt, then succeeds with ledger and events', async () => {
  const created = await create(chargeBody({ metadata: { order: 'A-1', zeta: 1, alpha: 2 } }));
  expect(created.status).toBe(200);
  expect(created.json).toMatchObject({
    object: 'charge',
    status: 'awaiting_action',
    amount: 15000,
    currency: 'GHS',
    customer_amount: 15000,
    fee: { platform: 225, tax: 34, bearer: 'merchant' },
    merchant_amount: 14741,
    action: { type: 'prompt' },
    customer: { masked: '********4567', name: 'Ama Mensah' },
  });
  expect(created.json.action.url).toBeUndefined();
  expect(created.text).toContain('"metadata":{"order":"A-1","zeta":1,"alpha":2}');

  const final = await h.settled(created.json.id);
  expect(final.status).toBe('succeeded');
  const fetched = await h.request('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key: merchant.testKey });
  expect(fetched.json.status).toBe('succeeded');

  const balances = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  expect(balances.json).toEqual({ object: 'balance', livemode: false, available: [{ currency: 'GHS', amount: 14741 }], pending: [{ currency: 'GHS', amount: 0 }], reserved: [{ currency: 'GHS', amount: 0 }] });

  const events = await h.request('sandbox', 'GET', '/v1/events?after_sequence=0', { key: merchant.testKey });
  expect(events.json.data.map((e: { type: string; sequence: number }) => [e.type, e.sequence])).toEqual([
    ['transaction.created', 1],
    ['transaction.succeeded', 2],
  ]);
});
