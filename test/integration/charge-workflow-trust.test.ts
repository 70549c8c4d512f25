import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, type Payload } from '@temporalio/common';
import { CHARGE_INPUT_REFUSED } from '../../src/domain/charge-start';
import { findCharge } from '../../src/persistence/charges/charge-store';
import { buildChargeDraft, type ChargeRequest } from '../../src/services/charge-draft';
import { newId } from '../../src/support/new-id';
import { chargeStartOptions } from '../../src/temporal/charge-start';
import type { chargeWorkflow } from '../../workflows/charge';
import { countRows } from '../support/db-counts';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { decodedJson } from '../support/payload-codec';

// Issue 9 on a real Temporal server and PostgreSQL. (1) Whoever reaches Temporal can start
// chargeWorkflow: an invented live draft refuses to run and writes nothing; a run started again for
// a finished charge moves no money. (2) The history of a charge holds no customer data: not the
// identifier (not even masked), nor the name or the description.

let h: Harness;
let m: TestMerchant;
beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await h?.close();
});

const none = { charges: 0, events: 0, ledger_entries: 0, idempotency_keys: 0, last_sequence: 0 };

async function failureOf(chargeId: string): Promise<ApplicationFailure> {
  const error = await h.temporal.client.workflow.getHandle(chargeId).result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return (error as WorkflowFailedError).cause as ApplicationFailure;
}

test('an invented live draft started on Temporal refuses to run: no charge, ledger, balance or event row', async () => {
  const fresh = await h.merchant({ verified: true });
  const caller = { merchantId: fresh.id, environment: 'live' as const, keyId: 'key_invented', merchantVerified: true };
  const draft = buildChargeDraft(caller, newId('charge'), chargeBody({ amount: 9_999_999 }) as unknown as ChargeRequest, new Date());
  // As the API would start it (same id, queue, search attributes), but with the whole draft as input.
  await h.temporal.client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', { ...chargeStartOptions(draft, h.taskQueue), args: [draft] });
  expect(await failureOf(draft.id)).toMatchObject({ type: CHARGE_INPUT_REFUSED, nonRetryable: true });
  expect(await countRows(h.orm, fresh.id)).toEqual(none);
  const balance = await h.request('live', 'GET', '/v1/balances', { key: fresh.liveKey });
  expect(balance.json).toEqual({ object: 'balance', livemode: true, available: [], pending: [], reserved: [] });
});

test('a charge workflow started again for a succeeded charge moves no money and writes nothing', async () => {
  const created = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody(), headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(created.status).toBe(200);
  expect((await h.settled(created.json.id)).status).toBe('succeeded');
  const before = await countRows(h.orm, m.id, 'sandbox');
  const balanceBefore = (await h.request('sandbox', 'GET', '/v1/balances', { key: m.testKey })).json;

  const record = (await findCharge(h.orm, { merchantId: m.id, environment: 'sandbox' }, created.json.id))!;
  const again = await h.temporal.client.workflow.start<typeof chargeWorkflow>('chargeWorkflow', {
    ...chargeStartOptions(record, h.taskQueue),
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
  expect(await again.result()).toMatchObject({ id: created.json.id, status: 'succeeded' });
  expect(await countRows(h.orm, m.id, 'sandbox')).toEqual(before);
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: m.testKey })).json).toEqual(balanceBefore);
});

/** Every payload anywhere in a history (inputs, results, markers, failures), decoded to text. */
async function historyText(chargeId: string): Promise<string> {
  const history = await h.temporal.client.workflow.getHandle(chargeId).fetchHistory();
  const payloads: Payload[] = [];
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const record = node as Record<string, unknown>;
    if ('data' in record && 'metadata' in record && record.data instanceof Uint8Array) payloads.push(record as Payload);
    Object.values(record).forEach(walk);
  };
  walk(history.events);
  const texts = await Promise.all(payloads.map(async (p) => JSON.stringify(await decodedJson(p).catch(() => Buffer.from(p.data ?? []).toString('utf8')))));
  return texts.join('\n') + JSON.stringify(history);
}

test.each<[string, Record<string, unknown> & { customer: { identifier: string; name: string } }]>([
  ['mobile money', { customer: { identifier: '233209876543', name: 'Kwabena Personal-Data' } }],
  // An explicit outcome: without one a card charge waits for its hosted checkout.
  ['card', { channel: 'card', momo_network_id: undefined, currency: 'USD', customer: { identifier: '4111 2222 3333 4444', name: 'Efua Personal-Data' }, metadata: { sandbox_outcome: 'succeed' } }],
])('%s: the workflow history holds no identifier, name or description (full or masked)', async (_, overrides) => {
  const body = chargeBody({ ...overrides, description: 'Private description 7781' });
  const created = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(created.status).toBe(200);
  const identifier = (body.customer as { identifier: string }).identifier;
  // The API shows the masked form (at most the last 4; a card's first 6 and last 4).
  expect(created.json.customer.masked).toBe(overrides.channel === 'card' ? '411122******4444' : '********6543');
  await h.settled(created.json.id);

  const text = await historyText(created.json.id);
  expect(text).toContain(created.json.id); // the walk did see the history
  for (const secret of [identifier, identifier.replace(/\s/g, ''), created.json.customer.masked, (body.customer as { name: string }).name, 'Private description 7781']) {
    expect(text).not.toContain(secret);
  }
});
