/**
 * The payout operator commands of issue 10 (`payouts approve|reject|reverse ID --reason TEXT`), run
 * as child processes against the suite's PostgreSQL and Temporal dev server with a real worker: each
 * sends a Temporal update to the payout's workflow (validated there), prints one JSON object (the
 * payout) and exits 0, or prints the refusal on stderr and exits 1 with nothing changed. Balances
 * after each step are checked against the sums done by hand; the ledger check runs in afterAll.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { SA } from '../../src/domain/search-attributes';
import { decidePayoutUpdate } from '../../workflows/payout-messages';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';
import { runCli, type CliResult } from '../support/run-cli';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
});
afterAll(() => h?.close());

const cli = (...args: string[]): Promise<CliResult> => runCli(h.taskQueue, ...args);

async function cliJson(...args: string[]): Promise<any> {
  const r = await cli(...args);
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  expect(r.stdout.indexOf('\n')).toBe(r.stdout.length - 1);
  return JSON.parse(r.stdout);
}

async function cliFails(...args: string[]): Promise<string> {
  const r = await cli(...args);
  expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
  return r.stderr;
}

async function createPayout(m: TestMerchant, amount: number, metadata: Record<string, unknown> = {}) {
  const res = await h.request('sandbox', 'POST', '/v1/payouts', {
    key: m.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: { amount, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: 'ops', metadata },
  });
  expect(res.status).toBe(200);
  return res.json as { id: string; status: string; total_debit: number; fee: { platform: number; tax: number } };
}

const getPayout = async (m: TestMerchant, id: string) => (await h.request('sandbox', 'GET', `/v1/payouts/${id}`, { key: m.testKey })).json;
const result = (id: string) => h.temporal.client.workflow.getHandle(id).result() as Promise<{ status: string }>;

async function waitHeld(id: string): Promise<void> {
  const handle = h.temporal.client.workflow.getHandle(id);
  for (let i = 0; i < 200; i++) {
    if ((await handle.query('nextTimer').catch(() => null)) !== null) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`payout ${id} never waited for review`);
}

test('approve: pending with the review recorded, then succeeded; the reservation posted out', async () => {
  const m = await h.merchant();
  await fundMerchant(h, m.id, 1_000_000);
  const payout = await createPayout(m, 100_000, { sandbox_outcome: 'held_for_review' });
  expect(payout.status).toBe('held_for_review');
  await waitHeld(payout.id);
  expect((await h.temporal.client.workflow.getHandle(payout.id).describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
  expect(await balanceRows(h, m.id)).toMatchObject({ merchant_available: 1_000_000 - payout.total_debit, merchant_reserved: payout.total_debit });

  await cliFails('payouts', 'approve', payout.id); // no --reason
  const approved = await cliJson('payouts', 'approve', payout.id, '--reason', 'known supplier');
  expect(approved).toMatchObject({ id: payout.id, object: 'payout', review: { decision: 'approved', reason: 'known supplier', decided_at: expect.any(String) } });
  expect(['pending', 'succeeded']).toContain(approved.status);
  expect(approved.review.decided_by).toBeUndefined(); // recorded, not shown to the merchant
  const [row] = await h.orm.em.getConnection().execute<{ review_decided_by: string }[]>('select review_decided_by from payouts where id = ?', [payout.id]);
  expect(row.review_decided_by).toMatch(/^cli/);

  expect(await result(payout.id)).toMatchObject({ status: 'succeeded' });
  expect(await getPayout(m, payout.id)).toMatchObject({ status: 'succeeded', review: { decision: 'approved' } });
  expect(await balanceRows(h, m.id)).toMatchObject({ merchant_available: 1_000_000 - payout.total_debit, merchant_reserved: 0 });
  expect((await h.temporal.client.workflow.getHandle(payout.id).describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(false);

  // A second decision: the payout is no longer held.
  expect(await cliFails('payouts', 'reject', payout.id, '--reason', 'too late')).toMatch(/only a payout held for review/);

  // Operator reversal once the run has closed: a new run under the same id; the amount comes back, the fee is kept.
  const reversed = await cliJson('payouts', 'reverse', payout.id, '--reason', 'recipient returned it');
  expect(reversed).toMatchObject({ id: payout.id, status: 'reversed' });
  expect(await balanceRows(h, m.id)).toMatchObject({ merchant_available: 1_000_000 - payout.fee.platform - payout.fee.tax, merchant_reserved: 0 });
  expect(await cliFails('payouts', 'reverse', payout.id, '--reason', 'again')).toMatch(/only a succeeded payout can be reversed/);

  // One audit row per action, written by the workflow: who, why, the state before and after.
  const audit = (await cliJson('audit', 'list', '--payment', payout.id)).data as Array<Record<string, any>>;
  expect(audit.map((r) => [r.action, r.reason, r.state_before.status, r.state_after.status])).toEqual(
    expect.arrayContaining([
      ['payout.approve', 'known supplier', 'held_for_review', expect.stringMatching(/^(pending|succeeded)$/)],
      ['payout.reverse', 'recipient returned it', 'succeeded', 'reversed'],
    ]),
  );
  expect(audit).toHaveLength(2);
  expect(audit.every((r) => /^cli/.test(r.operator))).toBe(true);
});

test('raw decidePayout updates, as the Temporal UI sends them: refused without an operator or a reason (nothing changes), then applied: audit row, ledger, events', async () => {
  const m = await h.merchant();
  await fundMerchant(h, m.id, 400_000);
  const [held, other] = [await createPayout(m, 50_000, { sandbox_outcome: 'held_for_review' }), await createPayout(m, 60_000, { sandbox_outcome: 'held_for_review' })];
  await waitHeld(held.id);
  await waitHeld(other.id);
  const handle = h.temporal.client.workflow.getHandle(held.id);
  const events = async () => (await h.request('sandbox', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.testKey })).json.data.map((e: { type: string; data: { id: string } }) => `${e.data.id === held.id ? 'held' : 'other'}:${e.type}`);
  const eventsBefore = await events();
  const balancesBefore = await balanceRows(h, m.id);

  for (const [request, message] of [
    [{ decision: 'approve', reason: 'known supplier' }, /^an "operator" is required/],
    [{ decision: 'approve', reason: '  ', operator: 'ui:ama' }, /reason/],
  ] as const) {
    const refused = await handle.executeUpdate(decidePayoutUpdate, { args: [request as never] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(message);
  }
  expect(await events()).toEqual(eventsBefore);
  expect(await balanceRows(h, m.id)).toEqual(balancesBefore);
  expect((await cliJson('audit', 'list', '--payment', held.id)).data).toEqual([]);

  const approved = await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', reason: 'supplier called back', operator: 'ui:ama' }] });
  expect(approved).toMatchObject({ id: held.id });
  expect(await result(held.id)).toMatchObject({ status: 'succeeded' });
  const rejected = await h.temporal.client.workflow.getHandle(other.id).executeUpdate(decidePayoutUpdate, { args: [{ decision: 'reject', reason: 'unknown recipient', operator: 'ui:kwame' }] });
  expect(rejected).toMatchObject({ id: other.id, status: 'failed' });

  expect((await cliJson('audit', 'list', '--payment', held.id)).data).toEqual([
    expect.objectContaining({ action: 'payout.approve', operator: 'ui:ama', reason: 'supplier called back', state_before: expect.objectContaining({ status: 'held_for_review' }) }),
  ]);
  expect((await cliJson('audit', 'list', '--payment', other.id)).data).toEqual([
    expect.objectContaining({ action: 'payout.reject', operator: 'ui:kwame', reason: 'unknown recipient', state_after: expect.objectContaining({ status: 'failed' }) }),
  ]);
  // The approved payout's debit left; the rejected one's reservation came back.
  expect(await balanceRows(h, m.id)).toMatchObject({ merchant_available: 400_000 - held.total_debit, merchant_reserved: 0 });
  const after = await events();
  expect(after.filter((e: string) => e.startsWith('held:'))).toEqual(['held:payout.held_for_review', 'held:payout.initiated', 'held:payout.succeeded']);
  expect(after.filter((e: string) => e.startsWith('other:'))).toEqual(['other:payout.held_for_review', 'other:payout.failed']);
});

test('reject: failed with declined, the reservation released', async () => {
  const m = await h.merchant();
  await fundMerchant(h, m.id, 500_000);
  const payout = await createPayout(m, 200_000, { sandbox_outcome: 'held_for_review' });
  await waitHeld(payout.id);
  const rejected = await cliJson('payouts', 'reject', payout.id, '--reason', 'unknown recipient');
  expect(rejected).toMatchObject({ status: 'failed', failure_class: 'declined', review: { decision: 'rejected', reason: 'unknown recipient' } });
  expect(await balanceRows(h, m.id)).toMatchObject({ merchant_available: 500_000, merchant_reserved: 0 });
  const events = (await h.request('sandbox', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.testKey })).json.data.map((e: { type: string }) => e.type);
  expect(events).toEqual(['payout.held_for_review', 'payout.failed']);
});

test('refusals: unknown payout, a payout not held, no reason — exit 1, nothing changed', async () => {
  const m = await h.merchant();
  await fundMerchant(h, m.id, 500_000);
  expect(await cliFails('payouts', 'approve', 'po_doesnotexist000000000000', '--reason', 'x')).toMatch(/does not exist/);
  const payout = await createPayout(m, 10_000, { sandbox_outcome: 'pending' });
  expect(await cliFails('payouts', 'approve', payout.id, '--reason', 'x')).toMatch(/is pending: only a payout held for review/);
  expect(await cliFails('payouts', 'reverse', payout.id, '--reason', 'x')).toMatch(/is pending: only a succeeded payout can be reversed/);
  expect(await cliFails('payouts', 'reverse', payout.id, '--reason', ' ')).toMatch(/--reason is required/);
  expect((await getPayout(m, payout.id)).status).toBe('pending');
  // Let it finish (ten minutes of sandbox pending) now: the advance signal.
  await h.temporal.client.workflow.getHandle(payout.id).signal('advance');
  expect(await result(payout.id)).toMatchObject({ status: 'failed' });
});
