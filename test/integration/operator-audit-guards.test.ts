/**
 * Issue 31, findings 5 and 6, against the suite's PostgreSQL and Temporal dev server with a real
 * worker: an audit row describes only a change that happened, with the record's own merchant and
 * environment, written in the same transaction as the change; an operator's text that the audit
 * insert or the payout's write could refuse is refused by the update's validator first.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { OperatorAuditRow } from '../../src/domain/operator-action';
import { loadPayout } from '../../src/persistence/payouts/payout-store';
import { reverseCharge } from '../../src/services/reverse-charge';
import { reversalStartOptions } from '../../src/temporal/charge-start';
import { payoutReversalOperation } from '../../src/temporal/payout-reversal-start';
import type { chargeReversalWorkflow } from '../../workflows/charge-reversal';
import { decidePayoutUpdate, reversePayoutUpdate } from '../../workflows/payout-messages';
import { fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, SANDBOX_QUEUES } from '../support/harness';
import { succeededCharge } from '../support/succeeded-charge';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
});
afterAll(() => h?.close());

const auditOf = (paymentId: string) =>
  h.orm.em.fork().execute<OperatorAuditRow[]>(`select action, operator, reason, merchant_id, environment, state_before, state_after from operator_audit where payment_id = ? order by created_at`, [paymentId]);

const now = () => new Date().toISOString();

describe('a charge reversal (finding 6)', () => {
  test('a second reversal run on a reversed charge moves nothing and writes no second row', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant);
    await reverseCharge(h.orm, h.temporal, h.taskQueue, charge.id, { operator: 'ops:ama', reason: 'customer refunded outside' });
    // Past the command's own check: a raw start of the reversal workflow, as from the Temporal UI.
    const again = await h.temporal.client.workflow.start<typeof chargeReversalWorkflow>('chargeReversalWorkflow', reversalStartOptions(charge, h.taskQueue, now(), { operator: 'ui:kofi', reason: 'again' }));
    expect(await again.result()).toMatchObject({ status: 'reversed' });
    const rows = await auditOf(charge.id);
    expect(rows.map((r) => [r.action, r.operator, r.reason, r.merchant_id, r.environment])).toEqual([['charge.reverse', 'ops:ama', 'customer refunded outside', merchant.id, 'sandbox']]);
  });

  test('a run started without search attributes: the row takes the charge\'s own merchant and environment', async () => {
    const merchant = await h.merchant();
    const charge = await succeededCharge(h, merchant);
    const { typedSearchAttributes: _none, ...options } = reversalStartOptions(charge, h.taskQueue, now(), { operator: 'ui:kofi', reason: 'raw start' });
    const run = await h.temporal.client.workflow.start<typeof chargeReversalWorkflow>('chargeReversalWorkflow', options);
    expect(await run.result()).toMatchObject({ status: 'reversed' });
    expect((await auditOf(charge.id)).map((r) => [r.action, r.merchant_id, r.environment])).toEqual([['charge.reverse', merchant.id, 'sandbox']]);
  });
});

describe('a payout (findings 5 and 6)', () => {
  async function heldPayout() {
    const merchant = await h.merchant();
    await fundMerchant(h, merchant.id, 1_000_000);
    const res = await h.request('sandbox', 'POST', '/v1/payouts', {
      key: merchant.testKey,
      headers: { 'Idempotency-Key': idempotencyKey() },
      body: { amount: 50_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: 'guards', metadata: { sandbox_outcome: 'held_for_review' } },
    });
    expect(res.json.status).toBe('held_for_review');
    const handle = h.temporal.client.workflow.getHandle(res.json.id as string);
    for (let i = 0; i < 200 && (await handle.query('nextTimer').catch(() => null)) === null; i++) await new Promise((r) => setTimeout(r, 50));
    return { merchant, id: res.json.id as string, handle };
  }

  test('NUL or U+0001 in the reason or operator is refused by the validator (nothing written); a 500-character multibyte reason is written to the payout and its one audit row, in one step', async () => {
    const { merchant, id, handle } = await heldPayout();
    for (const request of [
      { decision: 'approve', operator: 'ui:ama', reason: 'known\u0000supplier' },
      { decision: 'approve', operator: 'ui:ama', reason: 'known\u0001supplier' },
      { decision: 'approve', operator: 'ui:\u0000ama', reason: 'known supplier' },
      { decision: 'approve', operator: 'ui:ama', reason: 'known\nsupplier' },
    ] as const) {
      const refused = await handle.executeUpdate(decidePayoutUpdate, { args: [request] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(/must be plain text on one line: it contains U\+000[01A]/);
    }
    expect((await loadPayout(h.orm, id))!.status).toBe('held_for_review');
    expect(await auditOf(id)).toEqual([]);

    const reason = 'Überweisung geprüft, 供应商已知 ✓ '.repeat(20).slice(0, 500);
    expect(reason).toHaveLength(500);
    const approved = await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', operator: 'ui:ama', reason }] });
    expect(approved).toMatchObject({ review: { decision: 'approved', reason: reason.trim() } });
    expect((await loadPayout(h.orm, id))!.reviewReason).toBe(reason.trim());
    const rows = await auditOf(id);
    expect(rows.map((r) => [r.action, r.operator, r.reason, r.merchant_id, r.environment, (r.state_before as { status: string }).status])).toEqual([
      ['payout.approve', 'ui:ama', reason.trim(), merchant.id, 'sandbox', 'held_for_review'],
    ]);
    expect(await handle.result()).toMatchObject({ status: 'succeeded' });
  });

  test('a second reversal of a reversed payout (update-with-start past the command\'s check) moves nothing and writes no second row', async () => {
    const { merchant, id, handle } = await heldPayout();
    await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', operator: 'ui:ama', reason: 'known supplier' }] });
    expect(await handle.result()).toMatchObject({ status: 'succeeded' });
    const reverse = async (reason: string) =>
      h.temporal.client.workflow.executeUpdateWithStart(reversePayoutUpdate, { args: [{ operator: 'ui:kofi', reason }], startWorkflowOperation: payoutReversalOperation((await loadPayout(h.orm, id))!, h.taskQueue) });
    expect(await reverse('recipient returned it')).toMatchObject({ status: 'reversed' });
    expect(await reverse('again')).toMatchObject({ status: 'reversed' });
    const reversals = (await auditOf(id)).filter((r) => r.action === 'payout.reverse');
    expect(reversals.map((r) => [r.operator, r.reason, r.merchant_id, r.environment, (r.state_after as { status: string }).status])).toEqual([['ui:kofi', 'recipient returned it', merchant.id, 'sandbox', 'reversed']]);
  });
});
