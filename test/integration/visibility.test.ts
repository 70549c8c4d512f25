/**
 * The operator's view (INTERFACE "Operators and engineers"): workflow id = charge id, and the custom
 * search attributes find exactly the right charges in Temporal visibility. Visibility is eventually
 * consistent, so list queries are retried a bounded number of times (only here).
 */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { SA } from '../../src/domain/search-attributes';
import { reverseCharge } from '../../src/services/reverse-charge';
import { writeLiveCharge } from '../support/live-charge';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type ApiResponse, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';

let h: Harness;
let merchant: TestMerchant;
/** Charge ids by role. */
const ids: Record<'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G', string> = {} as never;

const KES_MPESA = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b04';
const card = (overrides: Record<string, unknown>) =>
  chargeBody({ channel: 'card', momo_network_id: undefined, customer: { identifier: '4242424242424242', name: 'Card Holder' }, ...overrides });
const bank = (overrides: Record<string, unknown>) =>
  chargeBody({ channel: 'bank', momo_network_id: undefined, customer: { identifier: 'GH0012345678', name: 'Bank Holder' }, ...overrides });

function create(body: Record<string, unknown>, env: 'sandbox' | 'live' = 'sandbox'): Promise<ApiResponse> {
  return h.request(env, 'POST', '/v1/charges', { key: env === 'live' ? merchant.liveKey : merchant.testKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function list(query: string): Promise<WorkflowExecutionInfo[]> {
  const out: WorkflowExecutionInfo[] = [];
  for await (const wf of h.temporal.client.workflow.list({ query: `MerchantId='${merchant.id}' AND ${query}` })) out.push(wf);
  return out;
}

const idSet = (infos: WorkflowExecutionInfo[]) => [...new Set(infos.map((i) => i.workflowId))].sort();

/** Retries until `done` holds for the ids seen (bounded); returns what it last saw, for the assertion to report. */
async function eventually(query: string, done: (ids: string[]) => boolean, attempts = 50): Promise<string[]> {
  let seen: string[] = [];
  for (let i = 0; i < attempts; i++) {
    seen = idSet(await list(query));
    if (done(seen)) break;
    await sleep(200);
  }
  return seen;
}

/** Retries until exactly `expected` is found. */
function eventuallyIds(query: string, expected: string[]): Promise<string[]> {
  const want = JSON.stringify([...expected].sort());
  return eventually(query, (seen) => JSON.stringify(seen) === want);
}

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  merchant = await h.merchant({ verified: true });
  const results = await Promise.all([
    create(chargeBody({ amount: 15000, metadata: { sandbox_outcome: 'indeterminate' } })),
    create(card({ amount: 10000, currency: 'USD', metadata: { sandbox_outcome: 'pending' } })),
    create(chargeBody({ amount: 15000, momo_network_id: MTN_GH, metadata: { sandbox_outcome: 'declined' } })),
    create(bank({ amount: 20000, metadata: { sandbox_outcome: 'insufficient_funds' } })),
    create(chargeBody({ amount: 50000, currency: 'KES', momo_network_id: KES_MPESA })),
    create(card({ amount: 30000, currency: 'USD', metadata: { sandbox_outcome: 'succeed' } })),
  ]);
  // The live listener moves no money (no live rail): G is written as the API would, and fails at once.
  const g = await writeLiveCharge(h, merchant, { amount: 15000 });
  const [a, b, c, d, e, f] = results;
  expect(a.status).toBe(504);
  ids.A = a.json.error.transaction_id;
  for (const r of [b, c, d, e, f]) expect(r.status).toBe(200);
  Object.assign(ids, { B: b.json.id, C: c.json.id, D: d.json.id, E: e.json.id, F: f.json.id, G: g.id });

  const finals = await Promise.all([ids.C, ids.D, ids.E, ids.F, ids.G].map((id) => h.settled(id)));
  expect(finals.map((r) => r.status)).toEqual(['failed', 'failed', 'succeeded', 'succeeded', 'failed']);
  const reversed = await reverseCharge(h.orm, h.temporal, h.taskQueue, ids.F, { operator: 'test', reason: 'visibility test' });
  expect(JSON.parse(reversed).status).toBe('reversed');
});

afterAll(async () => {
  for (const id of [ids.A, ids.B]) if (id) await h.temporal.client.workflow.getHandle(id).terminate('test finished').catch(() => undefined);
  await h?.close();
});

test('workflow id is the charge id, for every charge of the merchant', async () => {
  expect(await eventuallyIds('Amount > 0', Object.values(ids))).toEqual(Object.values(ids).sort());
  for (const id of Object.values(ids)) {
    const description = await h.temporal.client.workflow.getHandle(id).describe();
    expect(description.workflowId).toBe(id);
    expect(id).toMatch(/^txn_/);
  }
});

test.each([
  ['awaiting_action', ['A']],
  ['pending', ['B']],
  ['failed', ['C', 'D', 'G']],
  ['reversed', ['F']],
] as const)("PaymentStatus='%s' finds exactly its charges", async (status, roles) => {
  const expected = roles.map((r) => ids[r]);
  expect(await eventuallyIds(`PaymentStatus='${status}'`, expected)).toEqual([...expected].sort());
});

test("PaymentStatus='succeeded' finds the succeeded charges; a reversed charge shows only through its earlier run", async () => {
  const expected = [ids.E];
  const seen = await eventually(`PaymentStatus='succeeded'`, (found) => expected.every((id) => found.includes(id)));
  expect(seen).toEqual(expect.arrayContaining(expected));
  // The reversal runs as a new run under the same id: the closed first run keeps 'succeeded', the
  // current run says 'reversed'.
  for (const id of seen.filter((s) => !expected.includes(s))) {
    expect(id).toBe(ids.F);
    const latest = await h.temporal.client.workflow.getHandle(id).describe();
    expect(latest.typedSearchAttributes.get(SA.PaymentStatus)).toBe('reversed');
  }
});

test.each([
  ["FailureClass='declined'", ['C']],
  ["FailureClass='insufficient_funds'", ['D']],
  ["Environment='live'", ['G']],
  ["Environment='sandbox'", ['A', 'B', 'C', 'D', 'E', 'F']],
  ["Channel='card'", ['B', 'F']],
  ["Channel='bank'", ['D']],
  ["Channel='mobile_money'", ['A', 'C', 'E', 'G']],
  ["Currency='KES'", ['E']],
  ["Currency='USD' AND Amount >= 20000", ['F']],
  ['Amount >= 50000', ['E']],
  ['Amount < 15000', ['B']],
  ["Environment='sandbox' AND Channel='mobile_money' AND PaymentStatus='failed'", ['C']],
  ["ExecutionStatus='Running'", ['A', 'B']],
] as const)('%s finds exactly the right charges', async (query, roles) => {
  const expected = roles.map((r) => ids[r]);
  expect(await eventuallyIds(query, expected)).toEqual([...expected].sort());
});

test('each charge’s attributes equal its state', async () => {
  const expectations: Record<keyof typeof ids, Record<string, unknown>> = {
    A: { PaymentStatus: 'awaiting_action', Environment: 'sandbox', Channel: 'mobile_money', Currency: 'GHS', Amount: 15000, FailureClass: undefined },
    B: { PaymentStatus: 'pending', Environment: 'sandbox', Channel: 'card', Currency: 'USD', Amount: 10000, FailureClass: undefined },
    C: { PaymentStatus: 'failed', Environment: 'sandbox', Channel: 'mobile_money', Currency: 'GHS', Amount: 15000, FailureClass: 'declined' },
    D: { PaymentStatus: 'failed', Environment: 'sandbox', Channel: 'bank', Currency: 'GHS', Amount: 20000, FailureClass: 'insufficient_funds' },
    E: { PaymentStatus: 'succeeded', Environment: 'sandbox', Channel: 'mobile_money', Currency: 'KES', Amount: 50000, FailureClass: undefined },
    F: { PaymentStatus: 'reversed', Environment: 'sandbox', Channel: 'card', Currency: 'USD', Amount: 30000, FailureClass: undefined },
    G: { PaymentStatus: 'failed', Environment: 'live', Channel: 'mobile_money', Currency: 'GHS', Amount: 15000, FailureClass: 'partner_unavailable' },
  };
  for (const [role, want] of Object.entries(expectations) as Array<[keyof typeof ids, Record<string, unknown>]>) {
    // describe() reads the current run's mutable state, not the eventually consistent index.
    const d = await h.temporal.client.workflow.getHandle(ids[role]).describe();
    const got = {
      PaymentStatus: d.typedSearchAttributes.get(SA.PaymentStatus),
      Environment: d.typedSearchAttributes.get(SA.Environment),
      Channel: d.typedSearchAttributes.get(SA.Channel),
      Currency: d.typedSearchAttributes.get(SA.Currency),
      Amount: d.typedSearchAttributes.get(SA.Amount),
      FailureClass: d.typedSearchAttributes.get(SA.FailureClass),
    };
    expect({ role, ...got }).toEqual({ role, ...want });
    expect(d.typedSearchAttributes.get(SA.MerchantId)).toBe(merchant.id);
  }
});
