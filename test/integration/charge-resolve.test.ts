/**
 * Issue 18, operators: an indeterminate charge (sandbox outcome `indeterminate`, create answered 504
 * `partner_timeout`) is flagged NeedsAttention at once with the reason and listed by `payments
 * stuck`; `charges resolve ID --as succeeded|failed --reason TEXT` (or the same `resolveCharge`
 * update sent raw, as the Temporal UI sends it) applies the partner's answer: ledger, event, balance
 * as for any outcome, the flag cleared, one audit row (`audit list`). Refusals change nothing.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { SA } from '../../src/domain/search-attributes';
import { resolveChargeUpdate } from '../../workflows/messages';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { runCli } from '../support/run-cli';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
});
afterAll(() => h?.close());

async function cliJson(...args: string[]): Promise<any> {
  const r = await runCli(h.taskQueue, ...args);
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  return JSON.parse(r.stdout);
}

async function cliFails(...args: string[]): Promise<string> {
  const r = await runCli(h.taskQueue, ...args);
  expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
  return r.stderr;
}

/** An indeterminate charge: the 504's transaction id, once its workflow has flagged it. */
async function indeterminate(m: TestMerchant): Promise<string> {
  const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, headers: { 'Idempotency-Key': idempotencyKey() }, body: chargeBody({ metadata: { sandbox_outcome: 'indeterminate' } }) });
  expect(res.status).toBe(504);
  const id: string = res.json.error.transaction_id;
  await flagged(id, true);
  return id;
}

async function flagged(id: string, value: boolean): Promise<void> {
  const handle = h.temporal.client.workflow.getHandle(id);
  for (let i = 0; i < 400; i++) {
    if ((await handle.describe()).typedSearchAttributes.get(SA.NeedsAttention) === value) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`charge ${id}: NeedsAttention never became ${value}`);
}

const events = async (m: TestMerchant) => ((await h.request('sandbox', 'GET', '/v1/events?after_sequence=0', { key: m.testKey })).json.data as Array<{ type: string; data: { id: string } }>).map((e) => e.type);
const balances = async (m: TestMerchant) => (await h.request('sandbox', 'GET', '/v1/balances', { key: m.testKey })).json;

test('flagged at once with the reason, listed by payments stuck; resolved as succeeded from the CLI: ledger, event, balance, flag cleared, audit row', async () => {
  const m = await h.merchant();
  const id = await indeterminate(m);
  const attention = await h.temporal.client.workflow.getHandle(id).query<{ needsAttention: boolean; step: string; reason: string }>('chargeAttention');
  expect(attention).toMatchObject({ needsAttention: true, step: 'partner answer', reason: expect.stringMatching(/^indeterminate: the partner did not answer \(partner_timeout\).*charges resolve/) });

  const stuck = await cliJson('payments', 'stuck', '--env', 'test', '--query', `WorkflowId = '${id}'`);
  expect(stuck.data.find((p: { id: string }) => p.id === id)).toMatchObject({ id, type: 'charge', needs_attention: true, reason: expect.stringMatching(/^indeterminate/) });

  expect(await cliFails('charges', 'resolve', id, '--as', 'succeeded')).toMatch(/--reason is required/);
  expect(await cliFails('charges', 'resolve', id, '--as', 'maybe', '--reason', 'x')).toMatch(/--as must be succeeded or failed/);

  const resolved = await cliJson('charges', 'resolve', id, '--as', 'succeeded', '--reason', 'partner confirmed by phone', '--operator', 'ops:ama');
  expect(resolved).toMatchObject({ id, object: 'charge', status: 'succeeded', failure_class: null });
  await flagged(id, false);
  expect(await events(m)).toEqual(['transaction.created', 'transaction.succeeded']);
  expect((await balances(m)).available).toEqual([{ currency: 'GHS', amount: resolved.merchant_amount }]);

  const audit = await cliJson('audit', 'list', '--payment', id);
  expect(audit.data).toEqual([
    expect.objectContaining({
      payment_id: id,
      action: 'charge.resolve',
      operator: 'ops:ama',
      reason: 'partner confirmed by phone',
      state_before: expect.objectContaining({ status: expect.stringMatching(/^(pending|awaiting_action)$/) }),
      state_after: expect.objectContaining({ status: 'succeeded' }),
      request_id: expect.any(String),
      batch_id: null,
      merchant_id: m.id,
      environment: 'sandbox',
    }),
  ]);
  expect((await cliJson('audit', 'list', '--action', 'charge.resolve', '--since', '1h')).data.map((r: { payment_id: string }) => r.payment_id)).toContain(id);

  // A second resolution: the charge no longer waits for its partner; nothing changes.
  expect(await cliFails('charges', 'resolve', id, '--as', 'failed', '--reason', 'changed my mind')).toMatch(/its workflow is not running|only an indeterminate charge/);
  expect(await events(m)).toEqual(['transaction.created', 'transaction.succeeded']);
});

test('a raw update as the Temporal UI sends it: refused without an operator, applied with one (failed, declined); the hold is voided', async () => {
  const m = await h.merchant();
  const id = await indeterminate(m);
  const handle = h.temporal.client.workflow.getHandle(id);
  const refused = await handle.executeUpdate(resolveChargeUpdate, { args: [{ as: 'failed', reason: 'partner says declined' } as never] }).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
  expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(/^an "operator" is required/);
  expect(await events(m)).toEqual(['transaction.created']);

  const state = await handle.executeUpdate(resolveChargeUpdate, { args: [{ as: 'failed', reason: 'partner says declined', operator: 'ui:kwame' }] });
  expect(state).toMatchObject({ id, status: 'failed', failureClass: 'declined' });
  await flagged(id, false);
  expect(await events(m)).toEqual(['transaction.created', 'transaction.failed']);
  expect(await balances(m)).toMatchObject({ available: [{ currency: 'GHS', amount: 0 }], pending: [{ currency: 'GHS', amount: 0 }] });
  expect((await cliJson('audit', 'list', '--payment', id)).data).toEqual([expect.objectContaining({ action: 'charge.resolve', operator: 'ui:kwame', state_after: expect.objectContaining({ status: 'failed', failureClass: 'declined' }) })]);
});

test('a charge that is not indeterminate cannot be resolved: refused with the reason, nothing changes', async () => {
  const m = await h.merchant();
  const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, headers: { 'Idempotency-Key': idempotencyKey() }, body: chargeBody({ metadata: { sandbox_outcome: 'pending' } }) });
  expect(res.status).toBe(200);
  const id: string = res.json.id;
  const stderr = await cliFails('charges', 'resolve', id, '--as', 'succeeded', '--reason', 'x');
  expect(stderr).toMatch(/only an indeterminate charge waiting for its partner's answer can be resolved/);
  expect((await cliJson('audit', 'list', '--payment', id)).data).toEqual([]);
  await h.temporal.client.workflow.getHandle(id).terminate('test cleanup');
});

test('bulk: --query with --merchant is a dry run without --yes (count by environment and merchant, first rows, a token; nothing changes); --yes --token resolves that set under one batch id, another merchant untouched', async () => {
  const [m, other] = [await h.merchant(), await h.merchant()];
  const mine = [await indeterminate(m), await indeterminate(m), await indeterminate(m)];
  const theirs = await indeterminate(other);
  const query = `NeedsAttention = true AND PaymentStatus IN ('pending', 'awaiting_action')`;
  const options = ['--as', 'succeeded', '--reason', 'partner settlement file: all paid', '--operator', 'ops:bulk'];
  const base = ['charges', 'resolve', '--query', query, '--merchant', m.id, ...options];

  // Visibility follows the flag within moments: wait until the dry run sees all three.
  let dry: any;
  for (let i = 0; i < 200; i++) {
    dry = await cliJson(...base);
    if (dry.count === 3) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(dry).toMatchObject({ dry_run: true, action: 'charges resolve', count: 3, by_environment: { sandbox: 3 }, by_merchant: { [m.id]: 3 }, query: `ExecutionStatus = 'Running' AND MerchantId = '${m.id}' AND (${query})` });
  expect(dry.first.map((r: { id: string }) => r.id).sort()).toEqual([...mine].sort());
  expect(await events(m)).toEqual(['transaction.created', 'transaction.created', 'transaction.created']);
  expect((await cliJson('audit', 'list', '--payment', mine[0])).data).toEqual([]);

  // The token binds the dry run's options: --as failed is refused.
  expect(await cliFails('charges', 'resolve', '--yes', '--token', dry.token, '--as', 'failed', '--reason', 'r')).toMatch(/was made with the options/);
  const applied = await cliJson('charges', 'resolve', '--yes', '--token', dry.token, ...options);
  expect(applied).toMatchObject({ dry_run: false, count: 3, succeeded: 3, failed: 0, batch_id: expect.stringMatching(/^opb_/) });
  const rows = (await cliJson('audit', 'list', '--batch', applied.batch_id)).data as Array<{ payment_id: string; batch_id: string; operator: string }>;
  expect(rows.map((r) => r.payment_id).sort()).toEqual([...mine].sort());
  expect(rows.every((r) => r.batch_id === applied.batch_id && r.operator === 'ops:bulk')).toBe(true);
  for (const id of mine) expect((await h.settled(id)).status).toBe('succeeded');
  expect(await events(other)).toEqual(['transaction.created']);
  expect((await h.temporal.client.workflow.getHandle(theirs).describe()).status.name).toBe('RUNNING');

  // A new dry run: nothing matches any more (the resolved runs have closed).
  expect(await cliJson(...base)).toMatchObject({ count: 0 });
  await h.temporal.client.workflow.getHandle(theirs).terminate('test cleanup');
});

test('payments stuck --query narrows the list; a bad id/query combination is a usage error', async () => {
  const m = await h.merchant();
  const id = await indeterminate(m);
  const listed = await cliJson('payments', 'stuck', '--query', `MerchantId = '${m.id}'`);
  expect(listed.data.map((p: { id: string }) => p.id)).toEqual([id]);
  expect(await cliFails('charges', 'resolve', id, '--query', 'x', '--as', 'failed', '--reason', 'r')).toMatch(/give an id or a bulk selection \(--query, --yes --token …\), not both/);
  expect(await cliFails('charges', 'resolve', id, '--yes', '--as', 'failed', '--reason', 'r')).toMatch(/give an id or a bulk selection/);
  expect(await cliFails('charges', 'resolve', id, '--merchant', m.id, '--as', 'failed', '--reason', 'r')).toMatch(/give an id or a bulk selection/);
  expect(await cliFails('charges', 'resolve', '--as', 'failed', '--reason', 'r')).toMatch(/charge id is required \(or --query/);
  await h.temporal.client.workflow.getHandle(id).terminate('test cleanup');
});
