import { TypedSearchAttributes } from '@temporalio/common';
import { paymentReviewWorkflowId } from '../../src/domain/payment-review';
import { SA } from '../../src/domain/search-attributes';
import { PayoutTransitionRefusedError, writePayoutTransition } from '../../src/persistence/payouts/payout-store';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { runCli } from '../support/run-cli';
import { until } from '../support/webhook-fixtures';

/**
 * Issue 43, finding 5 ("old-shape runs"), on the real stack: `payments old-shape` lists the open live
 * runs whose history has no `partner-word-only` marker and, with --yes, opens a watching payment
 * review for each, audited.
 *
 * A real run of the old shape needs the workflow code from before the patch (a run that decided its
 * rail without the marker replays so; today's code records the marker in every new live run's first
 * activation). So the old-shape run here is what a deploy finds of a run that no worker of this code
 * has run: a `payoutWorkflow` run of a live payout that reached the partner, started on a queue no
 * worker polls (as one pinned to a retired build), whose history holds no marker yet. The listing of
 * runs that took the old rail (the `live-partner-rail` marker without `partner-word-only`) is checked
 * on recorded histories (test/unit/old-shape-runs.test.ts).
 */

let partner: PartnerHarness;
let m: TestMerchant;
const h = () => partner.h;

beforeAll(async () => {
  // 0004: the partner accepts and says PENDING for ever.
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES, fake: { approveAfterMs: 30 * 60_000 } });
  m = await h().merchant({ verified: true });
  await fundMerchant(h(), m.id, 100_000, 'GHS', 'live');
});
afterAll(async () => {
  await partner?.close();
});

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h().orm.em.fork().getConnection().execute<T[]>(text, params);

async function livePayout(): Promise<{ id: string; total_debit: number }> {
  const res = await h().request('live', 'POST', '/v1/payouts', {
    key: m.liveKey,
    body: {
      amount: 20_000,
      currency: 'GHS',
      channel: 'mobile_money',
      momo_network_id: MTN_GH,
      recipient: { identifier: '233240000004', name: 'Kofi Boateng' },
      reference: `old-shape-${idempotencyKey()}`,
      metadata: {},
    },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id: string = res.json.id;
  await until(`${id} acknowledged by the partner`, async () => (await sql(`select 1 from rail_answers where payment_id = ? and outcome = 'acknowledged'`, [id])).length > 0);
  return res.json;
}

async function cli(...args: string[]): Promise<{ code: number | null; json: any; stderr: string }> {
  const r = await runCli(h().taskQueue, ...args);
  return { code: r.code, json: r.code === 0 ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

test('payments old-shape lists the live run without the partner-word-only marker and opens a watching review for it, audited', async () => {
  const client = h().temporal.client;
  const current = await livePayout(); // today's code: its run carries the marker
  const old = await livePayout();
  // The old-shape run: the payout's run as a deploy finds it on a build no worker of this code runs.
  await client.workflow.getHandle(old.id).terminate('test: replaced by a run of the old shape');
  await client.workflow.start('payoutWorkflow', {
    workflowId: old.id,
    taskQueue: `${h().taskQueue}-retired-build`,
    args: [{ payoutId: old.id }],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: SA.Environment, value: 'live' },
      { key: SA.MerchantId, value: m.id },
    ]),
  });
  const reserved = (await balanceRows(h(), m.id, 'GHS', 'live')).merchant_reserved;
  expect(reserved).toBe(current.total_debit + old.total_debit);

  // What its code does at its 24 h deadline (finish('failed', 'timeout')) is refused by the gate: the money stays reserved.
  await expect(writePayoutTransition(h().orm, old.id, { to: 'failed', failureClass: 'timeout' })).rejects.toThrow(PayoutTransitionRefusedError);

  const query = `MerchantId = '${m.id}'`;
  // Dry run (the default): lists, changes nothing. Visibility may lag the start a moment.
  const dry = await until('the old-shape run listed', async () => {
    const r = await cli('payments', 'old-shape', '--query', query);
    return r.code === 0 && r.json.count === 1 ? r.json : undefined;
  });
  expect(dry).toMatchObject({ dry_run: true, checked: 2, count: 1, runs: [{ id: old.id, type: 'payoutWorkflow', merchant_id: m.id, at_rail: false }] });
  expect(dry.apply_with).toMatch(/^payments old-shape --yes --reason TEXT --operator NAME with the same --query/);
  await expect(client.workflow.getHandle(paymentReviewWorkflowId(old.id)).describe()).rejects.toThrow(/not found/i);

  // --yes needs who and why; a reason without --yes is refused too.
  expect((await cli('payments', 'old-shape', '--query', query, '--yes', '--reason', 'deploy')).stderr).toMatch(/--operator is required/);
  expect((await cli('payments', 'old-shape', '--query', query, '--reason', 'deploy')).stderr).toMatch(/go with --yes/);

  const applied = await cli('payments', 'old-shape', '--query', query, '--yes', '--reason', 'deploy 8d41e07', '--operator', 'ops:ama');
  expect(applied).toMatchObject({ code: 0, json: { dry_run: false, count: 1, failed: [], watched: [{ id: old.id, review: paymentReviewWorkflowId(old.id), before: 'none' }] } });

  // The review asks the partner (PENDING) and stays flagged; the payout stays pending, its money reserved.
  const review = client.workflow.getHandle(paymentReviewWorkflowId(old.id));
  await until('the review flagged', async () => {
    const d = await review.describe();
    return d.status.name === 'RUNNING' && d.typedSearchAttributes.get(SA.NeedsAttention) === true;
  });
  const audit = await sql<{ operator: string; reason: string; action: string }>(`select operator, reason, action from operator_audit where payment_id = ? and action = 'payment.review_open'`, [old.id]);
  expect(audit).toEqual([{ operator: 'ops:ama', action: 'payment.review_open', reason: expect.stringMatching(/^old-shape run \(no partner-word-only marker: .*\): deploy 8d41e07$/) }]);
  expect((await sql<{ status: string }>(`select status from payouts where id = ?`, [old.id]))[0]!.status).toBe('pending');
  expect((await balanceRows(h(), m.id, 'GHS', 'live')).merchant_reserved).toBe(reserved);
  // Today's run was never listed: no review for it.
  await expect(client.workflow.getHandle(paymentReviewWorkflowId(current.id)).describe()).rejects.toThrow(/not found/i);

  for (const id of [old.id, current.id, paymentReviewWorkflowId(old.id)]) await client.workflow.getHandle(id).terminate('test cleanup: PENDING forever');
});
