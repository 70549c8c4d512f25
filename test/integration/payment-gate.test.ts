import { randomBytes } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createRailActivities } from '../../activities/rail';
import { startFakePartner, type FakePartner } from '../../src/rail/fake-partner';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import type { PartnerRail } from '../../src/rail/partner-rail';
import { passGate, PaymentGateRefusedError, StaleStatusError } from '../../src/persistence/payment-gate';
import { PayoutTransitionRefusedError, writePayoutTransition } from '../../src/persistence/payouts/payout-store';
import { restartPayment } from '../../src/services/restart-payment';
import { importStatement } from '../../src/persistence/reconcile/statement-store';
import { recordRailAnswer } from '../../src/persistence/partner/rail-answer-store';
import { Charge } from '../../src/persistence/entities';
import { SA } from '../../src/domain/search-attributes';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness, PAYMENT_QUEUES } from '../support/harness';
import { waitFor } from '../workflows/support/wait-for';

/**
 * Issue 43, "One gate for terminal decisions": every status change of a charge, payout or settlement
 * goes through the store's gate (src/persistence/payment-gate.ts), and the database refuses what goes
 * around it (migration 20261215000012): a raw update, a store-like update with the gate's marker but
 * no partner answer, a compare-and-set from a stale status. And finding 1: a restarted live payout's
 * first submission, refused by a partner that validates before it de-duplicates (fake `0013`), is a
 * repeat: checked against the partner's status, it ends as the partner says (succeeded), never failed.
 */

const SECRET = randomBytes(32).toString('base64url');
let fake: FakePartner;
let h: Harness;
let adapter: MomoPartnerRail;

beforeAll(async () => {
  fake = await startFakePartner({ approveAfterMs: 2_500 });
  const rail: PartnerRail = { submit: (p, r) => adapter.submit(p, r), status: (p, ref) => adapter.status(p, ref) };
  h = await startHarness({ queues: PAYMENT_QUEUES, rail, partnerCallbacks: { callbackSecret: SECRET } });
  adapter = new MomoPartnerRail(fake.partnerConfig({ callbackBaseUrl: h.urls.live, callbackSecret: SECRET, timeoutMs: 500 }));
});
afterAll(async () => {
  await h?.close();
  await adapter?.close();
  await fake?.close();
});

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.orm.em.fork().getConnection().execute<T[]>(text, params);

async function livePayout(merchant: { liveKey: string }, suffix: string): Promise<{ id: string; total_debit: number }> {
  const res = await h.request('live', 'POST', '/v1/payouts', {
    key: merchant.liveKey,
    body: {
      amount: 20_000,
      currency: 'GHS',
      channel: 'mobile_money',
      momo_network_id: MTN_GH,
      recipient: { identifier: `23324000${suffix}`, name: 'Kofi Boateng' },
      reference: `gate-${suffix}-${idempotencyKey()}`,
      metadata: {},
    },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  return res.json;
}

const answersOf = (paymentId: string) => sql<{ source: string; outcome: string; partner_status: string }>(`select source, outcome, partner_status from rail_answers where payment_id = ? order by id`, [paymentId]);
const statusOf = async (table: string, id: string) => (await sql<{ status: string }>(`select status from ${table} where id = ?`, [id]))[0].status;

describe('the status gate', () => {
  test('a live payout that reached the partner: the database refuses a raw update, a marked update without the partner word, and a stale from', async () => {
    const m = await h.merchant({ verified: true });
    await fundMerchant(h, m.id, 100_000, 'GHS', 'live');
    // 0004: accepted, PENDING forever: the payout reached the partner and waits for its word.
    const payout = await livePayout(m, '0004');
    await waitFor(async () => (await answersOf(payout.id)).some((a) => a.outcome === 'acknowledged'), 15_000);
    expect(await answersOf(payout.id)).toEqual([{ source: 'status', outcome: 'acknowledged', partner_status: 'ACCEPTED' }]);

    // (a) A raw update around the store: refused by the trigger, whatever the status.
    await expect(sql(`update payouts set status = 'failed' where id = ?`, [payout.id])).rejects.toMatchObject({ code: '23P43' });
    await expect(sql(`update payouts set status = 'failed' where id = ?`, [payout.id])).rejects.toThrow(/not written|only through the store's gate/);

    // (b) A store-like update that sets the marker but has no partner answer: refused, the payout stays pending.
    await expect(
      h.orm.em.fork().transactional(async (em) => {
        await em.execute(`select set_config('payments.gate', ?, true)`, [`payout:${payout.id}:pending:failed`]);
        await em.execute(`update payouts set status = 'failed' where id = ?`, [payout.id]);
      }),
    ).rejects.toThrow(/the partner has not said FAILED/);
    await expect(h.orm.em.fork().transactional((em) => passGate(em, { kind: 'payout', id: payout.id, from: 'pending', to: 'succeeded' }))).rejects.toThrow(PaymentGateRefusedError);
    // `unknown` after an acknowledgement does not end it either (the row is rolled back with the refused change).
    await expect(
      h.orm.em.fork().transactional(async (em) => {
        await em.execute(`insert into rail_answers (payment_id, product, reference_id, source, outcome, partner_status)
          select payment_id, product, reference_id, 'status', 'unknown', 'UNKNOWN' from rail_references where payment_id = ?`, [payout.id]);
        await passGate(em, { kind: 'payout', id: payout.id, from: 'pending', to: 'failed' });
      }),
    ).rejects.toThrow(/nor unknown before any acknowledgement/);

    // Compare-and-set: a review decision moves only from held_for_review (the Medium finding: the store accepted pending -> failed).
    await expect(h.orm.em.fork().transactional((em) => passGate(em, { kind: 'payout', id: payout.id, from: 'held_for_review', to: 'failed' }))).rejects.toThrow(StaleStatusError);
    await expect(
      writePayoutTransition(h.orm, payout.id, { to: 'failed', failureClass: 'declined', review: { decision: 'rejected', reason: 'replayed', decidedBy: 'system', decidedAt: new Date().toISOString() } }),
    ).rejects.toThrow(PayoutTransitionRefusedError);

    // With the partner's FAILED recorded, the same marked update passes (rolled back here: the run still owns the payout).
    const passed = await h.orm.em
      .fork()
      .transactional(async (em) => {
        await em.execute(`insert into rail_answers (payment_id, product, reference_id, source, outcome, partner_status)
          select payment_id, product, reference_id, 'status', 'failed', 'FAILED' from rail_references where payment_id = ?`, [payout.id]);
        await passGate(em, { kind: 'payout', id: payout.id, from: 'pending', to: 'failed' });
        throw new Error('rollback');
      })
      .catch((error: Error) => error.message);
    expect(passed).toBe('rollback');
    expect(await statusOf('payouts', payout.id)).toBe('pending');
    expect((await balanceRows(h, m.id, 'GHS', 'live')).merchant_reserved).toBe(payout.total_debit);
    await h.temporal.client.workflow.getHandle(payout.id).terminate('test cleanup: PENDING forever');
  });

  test("a store-like function that skips the gate (the ORM's flush of a live charge's status) is refused by the database", async () => {
    const m = await h.merchant({ verified: true });
    const res = await h.request('live', 'POST', '/v1/charges', {
      key: m.liveKey,
      body: chargeBody({ customer: { identifier: '233240000004', name: 'Ama Mensah' }, reference: `gate-orm-${idempotencyKey()}` }),
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(res.status).toBe(200);
    const id = res.json.id as string;
    await waitFor(async () => (await answersOf(id)).some((a) => a.outcome === 'acknowledged'), 15_000);
    const em = h.orm.em.fork();
    const row = await em.findOneOrFail(Charge, { id });
    const before = row.status;
    row.status = 'expired';
    await expect(em.flush()).rejects.toMatchObject({ code: '23P43' });
    expect(await statusOf('charges', id)).toBe(before);
    await h.temporal.client.workflow.getHandle(id).terminate('test cleanup: PENDING forever');
  });

  test('a live reversal is refused by the database, even through the gate with the partner\'s SUCCESSFUL on record: the rail has no refund yet (a reversal workflow started by hand on Temporal went through before)', async () => {
    const m = await h.merchant({ verified: true });
    await fundMerchant(h, m.id, 100_000, 'GHS', 'live');
    const payout = await livePayout(m, '0004');
    await waitFor(async () => (await answersOf(payout.id)).some((a) => a.outcome === 'acknowledged'), 15_000);
    const refused = await h.orm.em
      .fork()
      .transactional(async (em) => {
        await em.execute(`insert into rail_answers (payment_id, product, reference_id, source, outcome, partner_status)
          select payment_id, product, reference_id, 'status', 'succeeded', 'SUCCESSFUL' from rail_references where payment_id = ?`, [payout.id]);
        await passGate(em, { kind: 'payout', id: payout.id, from: 'pending', to: 'succeeded' });
        await passGate(em, { kind: 'payout', id: payout.id, from: 'succeeded', to: 'reversed' });
      })
      .then(
        () => 'passed',
        (error: Error) => error.message,
      );
    expect(refused).toMatch(/live payout .* succeeded -> reversed refused: a live payment that reached the partner is reversed only through the partner/);
    expect(await statusOf('payouts', payout.id)).toBe('pending');
    await h.temporal.client.workflow.getHandle(payout.id).terminate('test cleanup: PENDING forever');
  });

  test("a SUCCESSFUL for another amount or currency does not support a live end (migration 20261215000075); the partner's corrected answer is recorded beside it, and then it does", async () => {
    const m = await h.merchant({ verified: true });
    await fundMerchant(h, m.id, 100_000, 'GHS', 'live');
    const payout = await livePayout(m, '0004');
    await waitFor(async () => (await answersOf(payout.id)).some((a) => a.outcome === 'acknowledged'), 15_000);
    const end = (answers: Array<{ amount: number; currency: string }>) =>
      h.orm.em
        .fork()
        .transactional(async (em) => {
          for (const { amount, currency } of answers) {
            expect(await recordRailAnswer(em, { paymentId: payout.id, source: 'status', outcome: 'succeeded', partnerStatus: 'SUCCESSFUL', amount, currency, partnerTransactionId: 'ft-amount' })).toMatch(/^[0-9]+$/);
          }
          await passGate(em, { kind: 'payout', id: payout.id, from: 'pending', to: 'succeeded' });
          const rows = await em.execute<Array<{ amount: string; currency: string }>>(`select amount::text as amount, currency from rail_answers where payment_id = ? and outcome = 'succeeded' order by id`, [payout.id]);
          throw new Error(`rollback ${rows.map((r) => `${r.amount} ${r.currency}`).join(', ')}`);
        })
        .catch((error: Error) => error.message);
    expect(await end([{ amount: 19_999, currency: 'GHS' }])).toMatch(/live payout .* pending -> succeeded refused: the partner's SUCCESSFUL is for another amount or currency than 20000 GHS; the payment stays pending/);
    expect(await end([{ amount: 20_000, currency: 'NGN' }])).toMatch(/for another amount or currency than 20000 GHS/);
    // The same poll twice writes one row; the corrected answer is a row of its own, and the end passes.
    expect(await end([{ amount: 19_999, currency: 'GHS' }, { amount: 19_999, currency: 'GHS' }, { amount: 20_000, currency: 'GHS' }])).toBe('rollback 19999 GHS, 20000 GHS');
    expect(await statusOf('payouts', payout.id)).toBe('pending');
    await h.temporal.client.workflow.getHandle(payout.id).terminate('test cleanup: PENDING forever');
  });

  test("end to end: the partner's SUCCESSFUL for one minor unit less (fake 0015) leaves the live payout pending, its reservation kept, flagged with the difference", async () => {
    const m = await h.merchant({ verified: true });
    await fundMerchant(h, m.id, 100_000, 'GHS', 'live');
    const payout = await livePayout(m, '0015');
    const succeeded = () => sql<{ amount: string; currency: string }>(`select amount::text as amount, currency from rail_answers where payment_id = ? and outcome = 'succeeded'`, [payout.id]);
    await waitFor(async () => (await succeeded()).length > 0, 20_000);
    expect(await succeeded()).toEqual([{ amount: '19999', currency: 'GHS' }]);
    const handle = h.temporal.client.workflow.getHandle(payout.id);
    // NeedsAttention with `waiting: partner rail`; the reason itself is the run's current details (the Temporal UI shows it).
    const details = async () => (await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;
    await waitFor(async () => (await details()).includes("the partner's SUCCESSFUL says amount 19999 minor units, ours 20000"), 15_000);
    expect((await handle.describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await statusOf('payouts', payout.id)).toBe('pending');
    expect((await balanceRows(h, m.id, 'GHS', 'live')).merchant_reserved).toBe(payout.total_debit);
    await handle.terminate('test cleanup: the partner never corrects its record');
  });

  test('the sandbox is held to the marker only', async () => {
    const m = await h.merchant({ verified: true });
    const charge = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody({ reference: `gate-sbx-${idempotencyKey()}` }), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(charge.status).toBe(200);
    const id = charge.json.id as string;
    await expect(sql(`update charges set status = 'failed' where id = ?`, [id])).rejects.toMatchObject({ code: '23P43' });
    // With the marker (passGate) a sandbox end needs no partner answer; rolled back: the charge's run still owns it.
    const seen = await h.orm.em
      .fork()
      .transactional(async (em) => {
        const [{ status }] = await em.execute<Array<{ status: string }>>(`select status from charges where id = ? for update`, [id]);
        await passGate(em, { kind: 'charge', id, from: status, to: 'failed' });
        const [after] = await em.execute<Array<{ status: string }>>(`select status from charges where id = ?`, [id]);
        throw new Error(`rollback ${after.status}`);
      })
      .catch((error: Error) => error.message);
    expect(seen).toBe('rollback failed');
    expect(await h.settled(id)).toMatchObject({ status: 'succeeded' });
  });
});

describe('finding 1: a restarted live payout', () => {
  test("its first submission, refused by the partner's duplicate check (0013), is checked against the status: the payout succeeds, never failed or released", async () => {
    const m = await h.merchant({ verified: true });
    await fundMerchant(h, m.id, 100_000, 'GHS', 'live');
    const payout = await livePayout(m, '0013');
    const handle = h.temporal.client.workflow.getHandle(payout.id);
    // The first run submitted (the partner accepted: success after approveAfterMs); it is terminated before the answer.
    await waitFor(async () => (await answersOf(payout.id)).some((a) => a.outcome === 'acknowledged'), 15_000);
    await handle.terminate('test: the run dies before the partner answers');
    const restarted = await restartPayment(h.orm, h.temporal, h.taskQueue, payout.id, { operator: 'ops:test', reason: 'run terminated' });
    expect(restarted).toMatchObject({ restarted: true, status: 'pending' });
    expect(await handle.result()).toMatchObject({ status: 'succeeded' });
    const [{ reference_id: ref }] = await sql<{ reference_id: string }>(`select reference_id::text from rail_references where payment_id = ?`, [payout.id]);
    const submissions = fake.requests.filter((r) => r.method === 'POST' && r.headers['x-reference-id'] === ref);
    expect(submissions.length).toBeGreaterThanOrEqual(2); // the restarted run's submission was sent, and refused with a 400
    expect((await answersOf(payout.id)).map((a) => a.outcome)).not.toContain('failed');
    const rows = await balanceRows(h, m.id, 'GHS', 'live');
    expect(rows.merchant_reserved).toBe(0);
    expect(rows.merchant_available).toBe(100_000 - payout.total_debit);
    const events = await sql<{ type: string }>(`select type from events where resource_id = ? order by sequence`, [payout.id]);
    expect(events.map((e) => e.type)).toEqual(['payout.initiated', 'payout.succeeded']);
    // A statement line for it is the partner's word too: recorded as a `statement` answer (a day of our own: no other test imports it).
    const [line] = fake.statement('disbursement', new Date().toISOString().slice(0, 10)).lines.filter((l) => l.referenceId === ref);
    await importStatement(h.orm, { product: 'disbursement', date: '2026-02-03', lines: [line] }, 'test: payment-gate');
    expect(await sql(`select outcome, partner_status from rail_answers where payment_id = ? and source = 'statement'`, [payout.id])).toEqual([{ outcome: 'succeeded', partner_status: 'SUCCESSFUL' }]);
    // The postings of the live end carry the partner answer the gate found (its SUCCESSFUL); the reservation's do not.
    const [succeeded] = await sql<{ id: string }>(`select id::text as id from rail_answers where payment_id = ? and outcome = 'succeeded' and source = 'status'`, [payout.id]);
    const postings = await sql<{ kind: string; rail_answer_id: string | null }>(`select distinct kind, rail_answer_id::text as rail_answer_id from ledger_entries where resource_id = ? order by kind`, [payout.id]);
    expect(postings).toEqual([
      { kind: 'payout_post', rail_answer_id: succeeded.id },
      { kind: 'payout_reserve', rail_answer_id: null },
    ]);
  });

  test("a restart keeps the first run's submit window: past it nothing is sent; the partner's status answers", async () => {
    const m = await h.merchant({ verified: true });
    await fundMerchant(h, m.id, 100_000, 'GHS', 'live');
    const payout = await livePayout(m, '0004');
    await waitFor(async () => (await answersOf(payout.id)).some((a) => a.outcome === 'acknowledged'), 15_000);
    await h.temporal.client.workflow.getHandle(payout.id).terminate('test: the run died; a restart comes 25 h after the first submission');
    await sql(`update rail_references set created_at = now() - interval '25 hours' where payment_id = ?`, [payout.id]);
    const activities = createRailActivities({ orm: h.orm, secretBox: h.deps.secretBox, rail: adapter });
    const posts = () => fake.requests.filter((r) => r.method === 'POST').length;
    const before = posts();
    // The partner has it (PENDING): the restarted run follows it, nothing sent again.
    expect(await new MockActivityEnvironment().run(activities.railSubmit, { paymentId: payout.id, product: 'disbursement' as const })).toEqual({ kind: 'duplicate' });
    // The partner does not know it (a reference it never received): refused, final, still nothing sent.
    await sql(`update rail_references set reference_id = gen_random_uuid() where payment_id = ?`, [payout.id]);
    expect(await new MockActivityEnvironment().run(activities.railSubmit, { paymentId: payout.id, product: 'disbursement' as const })).toMatchObject({
      kind: 'refused',
      failureClass: 'partner_unavailable',
      reason: expect.stringMatching(/submit window closed at .*nothing was sent again/),
    });
    expect(posts()).toBe(before);
  });
});

