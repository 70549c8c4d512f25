import { PAYMENT_QUEUES } from '../support/harness';
import { LIVE_PAYOUT_DEADLINE_MS } from '../../src/domain/live-rail';
import { paymentReviewWorkflowId } from '../../src/domain/payment-review';
import type { PartnerRail } from '../../src/rail/partner-rail';
import { restartPayment } from '../../src/services/restart-payment';
import { restartedSettlementWait } from '../../src/services/restart-settlement';
import { openPaymentReview } from '../../src/services/review-open';
import { runSettlements } from '../../src/services/settlement-run';
import { stuckPayments } from '../../src/services/stuck-payments';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import type { TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { giveSettlementAccount } from '../support/settlement-runs';
import { until } from '../support/webhook-fixtures';

/**
 * Issue 43 (Medium: "a terminated settlement batch cannot be restarted: its money stays in transit
 * and the merchant's live balance is skipped forever"; payment reviews terminated by the server's
 * history limit). On the real stack (PostgreSQL, Temporal, the worker, the fake partner over HTTP):
 * a live batch whose run is terminated while its transfer never reached the partner, and a payment
 * review terminated while it asks the partner, are listed by `payments stuck` ("restart it") and
 * restarted by `payments restart`. The batch's new run resumes the wait from the database: it does
 * not submit as a first submission; asked, the partner does not know the reference, so the same
 * reference is sent again, as a repeat, inside the first submission's 24 h window; paid once.
 * `payments stuck` is scoped to each workflow (the dev server is shared by every file).
 */

/** Settlement accounts (BANK_ACCOUNT party ids end with them) whose transfers are lost on their way, never reaching the partner. */
const lost = new Set<string>();
const release: Array<() => void> = [];

let partner: PartnerHarness;
beforeAll(async () => {
  partner = await startPartnerHarness({
    queues: PAYMENT_QUEUES,
    wrapRail: (rail: PartnerRail): PartnerRail => ({
      ...rail,
      submit: (product, request) =>
        [...lost].some((account) => request.party.partyId.endsWith(account))
          ? // The call hangs, then fails without reaching the partner (a connection lost on the way).
            new Promise((_, reject) => release.push(() => reject(new Error('test: the transfer never reached the partner'))))
          : rail.submit(product, request),
    }),
  });
});
afterAll(async () => {
  for (const drop of release) drop();
  await partner?.close(); // runs `ledger check` over the whole database first
});

const h = () => partner.h;
const deps = () => ({ orm: h().orm, client: h().temporal.client, taskQueue: h().taskQueue });
const sql = <T>(text: string, params: unknown[] = []) => h().orm.em.fork().getConnection().execute<T[]>(text, params);
const stuckOf = (id: string) =>
  stuckPayments({ orm: h().orm, client: h().temporal.client, namespace: 'default', uiBaseUrl: 'http://ui.test', query: `WorkflowId = '${id}'`, graceMs: 0, requestDeadlineMs: 3_000 });
const transfersOf = (reference: string) =>
  partner.fake.requests.filter((r) => r.method === 'POST' && r.path === '/disbursement/v1_0/transfer' && JSON.stringify(r.headers).includes(reference));

/** A verified merchant with `amount` live GHS available and a settlement account (its last four digits pick the fake partner's behaviour). */
async function liveMerchant(amount: number, account: string): Promise<TestMerchant> {
  const m = await h().merchant({ verified: true });
  await fundMerchant(h(), m.id, amount, 'GHS', 'live');
  await giveSettlementAccount(h(), m.id, account, 'GCB');
  return m;
}

test('a live batch terminated while its transfer was lost on the way: listed, restarted, the same reference sent again inside the first window, paid once', async () => {
  const account = '0012345670020';
  const m = await liveMerchant(30_000, account);
  lost.add(account);
  const run = await runSettlements(deps(), { merchantId: m.id, environment: 'live' });
  expect(run.batches).toHaveLength(1);
  const id = run.batches[0].id;
  // The reference is chosen before the call: the batch may have reached the partner, as far as we know.
  const [ref] = await until('the transfer to be on its way', async () => {
    const rows = await sql<{ reference_id: string; created_at: Date }>('select reference_id::text, created_at from rail_references where payment_id = ?', [id]);
    return rows.length === 1 && release.length > 0 ? rows : undefined;
  });
  expect(partner.fake.transaction('disbursement', ref.reference_id)).toBeUndefined();

  await h().temporal.client.workflow.getHandle(id).terminate('test: the run died while its transfer was on the way');
  lost.delete(account);
  for (const drop of release.splice(0)) drop();
  expect((await sql<{ status: string }>('select status from settlements where id = ?', [id]))[0].status).toBe('pending');
  expect((await balanceRows(h(), m.id, 'GHS', 'live')).merchant_available).toBe(0);

  const listed = await until('payments stuck to list the batch', async () => (await stuckOf(id)).data.find((e) => e.id === id));
  expect(listed).toMatchObject({ id, type: 'settlement', environment: 'live', status: 'pending', workflow: 'closed' });
  expect(listed.reason).toContain(`its workflow is closed (TERMINATED): nothing will finish it; restart it: payments restart ${id} --reason TEXT`);

  const restarted = await restartPayment(h().orm, h().temporal, h().taskQueue, id, { operator: 'ops:test', reason: 'run terminated while the transfer was on its way' });
  expect(restarted).toMatchObject({ id, type: 'settlement', status: 'pending', previous_workflow: 'TERMINATED', restarted: true });
  await expect(restartPayment(h().orm, h().temporal, h().taskQueue, id, { operator: 'ops:test', reason: 'again' })).rejects.toThrow(/its workflow is running; nothing to restart/);
  // The new run resumes the wait (its input's resume, read from the database as the restart read it):
  // the first submission's window (from the reference), never a first submission.
  const firstMs = new Date(ref.created_at).getTime();
  expect(await restartedSettlementWait(h().orm, id)).toMatchObject({ startedMs: firstMs, submitUntilMs: firstMs + LIVE_PAYOUT_DEADLINE_MS, acknowledged: false, wake: true });
  const restartedMs = Date.now();

  // The partner does not know the reference: it is sent again, the same one, as a repeat; then paid.
  const [batch] = await until('the batch to be paid', async () => {
    const rows = await sql<{ status: string }>('select status from settlements where id = ?', [id]);
    return rows[0]?.status === 'paid' ? rows : undefined;
  });
  expect(batch.status).toBe('paid');
  // One transfer reached the partner, under the first reference, sent by the new run inside the first window.
  const sent = transfersOf(ref.reference_id);
  expect(sent).toHaveLength(1);
  expect(sent[0].at).toBeGreaterThanOrEqual(restartedMs - 1_000);
  const kept = partner.fake.transaction('disbursement', ref.reference_id);
  expect(kept?.state).toMatchObject({ externalId: id, status: 'SUCCESSFUL' });
  expect(Date.now()).toBeLessThan(firstMs + LIVE_PAYOUT_DEADLINE_MS);
  await until('the restart to be audited', async () => (await sql(`select 1 from operator_audit where payment_id = ? and action = 'settlement.restart'`, [id])).length === 1 || undefined);
  const rows = await balanceRows(h(), m.id, 'GHS', 'live');
  expect(rows.merchant_available).toBe(0);
}, 60_000);

test('a payment review terminated while it asks the partner: listed with "restart it", restarted (audited), asking again', async () => {
  // 0004: the partner keeps the transfer PENDING, with no callback.
  const m = await liveMerchant(20_000, '0012345670004');
  const run = await runSettlements(deps(), { merchantId: m.id, environment: 'live' });
  const id = run.batches[0].id;
  await until('the partner to acknowledge the transfer', async () => (await sql(`select 1 from rail_answers where payment_id = ? and outcome = 'acknowledged'`, [id])).length > 0 || undefined);
  const reviewId = paymentReviewWorkflowId(id);
  await openPaymentReview(deps(), id, { operator: 'ops:test', reason: 'watch this batch', requestId: 'req_test_review_restart' });
  const review = h().temporal.client.workflow.getHandle(reviewId);
  await until('the review to run', async () => ((await review.describe()).status.name === 'RUNNING') || undefined);
  await review.terminate('test: terminated as by the server history limit');

  const listed = await until('payments stuck to list the review', async () => (await stuckOf(reviewId)).data.find((e) => e.id === reviewId && e.reason.includes('restart it')));
  expect(listed).toMatchObject({ id: reviewId, workflow: 'closed', needs_attention: true });
  expect(listed.reason).toBe(`payment review ended while open (its workflow TERMINATED): nothing will finish it; restart it: payments restart ${reviewId} --reason TEXT`);

  const restarted = await restartPayment(h().orm, h().temporal, h().taskQueue, reviewId, { operator: 'ops:test', reason: 'review terminated' });
  expect(restarted).toMatchObject({ id: reviewId, type: 'payment_review', previous_workflow: 'TERMINATED', restarted: true, payment_id: id });
  await until('the new review run', async () => ((await review.describe()).status.name === 'RUNNING') || undefined);
  await expect(restartPayment(h().orm, h().temporal, h().taskQueue, reviewId, { operator: 'ops:test', reason: 'again' })).rejects.toThrow(/its workflow is running; nothing to restart/);
  const audits = await sql<{ state_before: { review: string } }>(`select state_before from operator_audit where payment_id = ? and action = 'payment.review_open' order by created_at`, [id]);
  expect(audits.map((a) => a.state_before.review)).toEqual(['none', 'TERMINATED']);
  // No longer listed as ended while open: the running review asks the partner again.
  const after = (await stuckOf(reviewId)).data.find((e) => e.id === reviewId);
  expect(after?.reason ?? '').not.toContain('restart it');
  await until('the new run to ask the partner', async () => partner.fake.requests.some((r) => r.method === 'GET' && r.path.includes('/disbursement/v1_0/transfer/')) || undefined);
}, 60_000);
