import { newId } from '../../src/support/new-id';
import { applyDisputeOutcome, beginDispute } from '../../src/persistence/disputes/dispute-store';
import { writePayoutTransition } from '../../src/persistence/payouts/payout-store';
import { applyRefundTransition } from '../../src/persistence/refunds/refund-store';
import { applySettlementTransition, sweepSettlement } from '../../src/persistence/settlements/settlement-store';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { giveSettlementAccount } from '../support/settlement-runs';
import { succeededCharge } from '../support/succeeded-charge';

/**
 * The idempotency every money step of a workflow rests on, shown on the real store functions its
 * activities call (activities/payouts.ts, refunds.ts, disputes.ts, settlements.ts) against real
 * PostgreSQL: a step run a second time with the same request (what a new worker does after the first
 * one died between the step's commit and the workflow recording it; test/integration/
 * money-worker-crash.test.ts kills a real worker there) changes nothing (the same ledger postings
 * once, the same events once, the same balance rows, the same projection, not even a consumed
 * sequence number) and answers the outcome recorded by the first run.
 *
 * The payout, refund and dispute are created through the API (their workflows start, but no worker
 * polls this file's task queue: nothing else writes them; they are terminated at the end); the charges
 * refunded and disputed are written through the charge store.
 */

let h: Harness;
const started: string[] = [];
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  if (h) await Promise.all(started.map((id) => h.temporal.client.workflow.getHandle(id).terminate('test over').catch(() => undefined)));
  await closeWithLedgerCheck(h);
});

async function sql<T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
  return h.orm.em.getConnection().execute<T[]>(query, params);
}

async function post(merchant: TestMerchant, route: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await h.request('sandbox', 'POST', route, { key: merchant.testKey, headers: { 'Idempotency-Key': idempotencyKey() }, body });
  if (res.status !== 200 && res.status !== 201) throw new Error(`POST ${route} answered ${res.status}: ${res.text}`);
  started.push(res.json.id);
  return res.json;
}

/** Everything of the merchant a money step can write, as stored (timestamps included: a rewrite shows). */
async function stored(merchantId: string, extra: { table: string; id: string }[]) {
  const rows: Record<string, unknown> = {};
  for (const { table, id } of extra) rows[`${table} ${id}`] = await sql(`select * from ${table} where id = ?`, [id]);
  return {
    rows,
    ledger: await sql(`select transfer_id, account, kind, amount::text as amount, resource_id, created_at from ledger_entries where merchant_id = ? order by transfer_id, account`, [merchantId]),
    events: await sql(`select id, sequence::int as sequence, type, dedupe_key, body, created_at from events where merchant_id = ? order by sequence`, [merchantId]),
    counters: await sql(`select environment, last_sequence::int as last_sequence from event_counters where merchant_id = ? order by environment`, [merchantId]),
    balances: await sql(`select environment, currency, account, amount::text as amount, updated_at from account_balances where merchant_id = ? order by environment, currency, account`, [
      merchantId,
    ]),
    swept: await sql(
      `select se.settlement_id, se.transfer_id, se.account, se.created_at from settlement_entries se join settlements s on s.id = se.settlement_id
       where s.merchant_id = ? order by se.transfer_id, se.account`,
      [merchantId],
    ),
  };
}

type Stored = Awaited<ReturnType<typeof stored>>;

/** The transfers (id → account → amount) and event types a step added between two snapshots. */
function added(before: Stored, after: Stored) {
  const known = new Set(before.ledger.map((r) => `${r.transfer_id} ${r.account}`));
  const transfers: Record<string, Record<string, number>> = {};
  for (const r of after.ledger) if (!known.has(`${r.transfer_id} ${r.account}`)) (transfers[r.transfer_id as string] ??= {})[r.account as string] = Number(r.amount);
  const events = after.events.slice(before.events.length).map((e) => e.dedupe_key);
  return { transfers, events };
}

/**
 * Runs `step` twice with the same request: the first run writes what `expected` says (and only
 * that), the second writes nothing at all and answers what the first answered.
 */
async function twice<T>(merchantId: string, extra: { table: string; id: string }[], step: () => Promise<T>, expected: ReturnType<typeof added>): Promise<T> {
  const before = await stored(merchantId, extra);
  const first = await step();
  const afterFirst = await stored(merchantId, extra);
  expect(added(before, afterFirst)).toEqual(expected);
  const second = await step();
  expect(second).toEqual(first);
  expect(await stored(merchantId, extra)).toEqual(afterFirst);
  return second;
}

test('payout: writePayoutTransition twice with the same request posts, logs and moves the balances once, and answers the stored payout', async () => {
  const merchant = await h.merchant();
  await fundMerchant(h, merchant.id, 500_000);
  const payout = await post(merchant, '/v1/payouts', {
    amount: 40_000,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    recipient: { identifier: '233241234567', name: 'Kofi Boateng' },
    reference: 'twice',
  });
  const request = { to: 'succeeded' as const, at: new Date().toISOString() };
  const debit = payout.total_debit as number;
  const answer = await twice(merchant.id, [{ table: 'payouts', id: payout.id }], () => writePayoutTransition(h.orm, payout.id, request), {
    transfers: { [`${payout.id}:post`]: { merchant_reserved: -debit, payout_clearing: payout.amount, platform_fee: payout.fee.platform, tax: payout.fee.tax } },
    events: [`${payout.id}:payout.succeeded`],
  });
  expect(answer).toMatchObject({ id: payout.id, status: 'succeeded', updatedAt: request.at });
});

test('refund: applyRefundTransition twice with the same request posts, logs, moves the balances and the charge amount_refunded once, and answers the stored refund', async () => {
  const merchant = await h.merchant();
  const charge = await succeededCharge(h, merchant, 15_000, 100_000);
  const refund = await post(merchant, '/v1/refunds', { charge: charge.id, amount: 9_000 });
  const request = { refundId: refund.id as string, to: 'succeeded' as const, failureClass: null, at: new Date().toISOString() };
  const tables = [
    { table: 'refunds', id: refund.id },
    { table: 'charges', id: charge.id },
  ];
  const answer = await twice(merchant.id, tables, () => applyRefundTransition(h.orm, request), {
    transfers: { [`${refund.id}:post`]: { merchant_reserved: -9_000, refund_clearing: 9_000 } },
    events: [`${refund.id}:refund.succeeded`],
  });
  expect(answer).toMatchObject({ id: refund.id, status: 'succeeded', updatedAt: request.at });
  expect(await sql(`select amount_refunded::int as refunded from charges where id = ?`, [charge.id])).toEqual([{ refunded: 9_000 }]);
});

test('dispute: beginDispute and applyDisputeOutcome, each twice with the same request, write evidence_required, the debit and dispute.lost once, and answer the stored dispute', async () => {
  const merchant = await h.merchant();
  const charge = await succeededCharge(h, merchant, 15_000, 100_000);
  const dispute = await post(merchant, `/v1/sandbox/charges/${charge.id}/disputes`, { amount: 7_000 });
  const tables = [{ table: 'disputes', id: dispute.id }];

  const now = new Date();
  const begun = await twice(merchant.id, tables, () => beginDispute(h.orm, dispute.id, 3_600_000, now), { transfers: {}, events: [`${dispute.id}:dispute.evidence_required`] });
  expect(begun?.dispute).toMatchObject({ id: dispute.id, status: 'needs_response', evidenceDueBy: new Date(Date.parse(dispute.created_at) + 3_600_000).toISOString() });

  const request = { disputeId: dispute.id as string, to: 'lost' as const, at: new Date().toISOString() };
  const answer = await twice(merchant.id, tables, () => applyDisputeOutcome(h.orm, request), {
    transfers: { [`${dispute.id}:debit`]: { merchant_reserved: -7_000, dispute_clearing: 7_000 } },
    events: [`${dispute.id}:dispute.lost`],
  });
  expect(answer).toMatchObject({ id: dispute.id, status: 'lost', updatedAt: request.at });
});

test('settlement: sweepSettlement and applySettlementTransition, each twice with the same request, sweep, post and log once, and answer the stored batch', async () => {
  const merchant = await h.merchant();
  await giveSettlementAccount(h, merchant.id);
  await fundMerchant(h, merchant.id, 52_000);
  await fundMerchant(h, merchant.id, 8_000);
  const settlementId = newId('settlement');
  const tables = [{ table: 'settlements', id: settlementId }];

  const sweep = { settlementId, merchantId: merchant.id, environment: 'sandbox' as const, currency: 'GHS', outcome: null, runId: null, at: new Date().toISOString() };
  const batch = await twice(merchant.id, tables, () => sweepSettlement(h.orm, sweep, h.deps.secretBox), {
    transfers: { [`${settlementId}:sweep`]: { merchant_available: -60_000, merchant_reserved: 60_000 } },
    events: [`${settlementId}:settlement.created`],
  });
  expect(batch).toMatchObject({ id: settlementId, status: 'pending', amount: 60_000, entryCount: 2 });
  // The two funding postings and the sweep's own, each marked once.
  expect(await sql(`select count(*)::int as n from settlement_entries where settlement_id = ?`, [settlementId])).toEqual([{ n: 3 }]);

  const request = { settlementId, to: 'paid' as const, failureClass: null, at: new Date().toISOString() };
  const paid = await twice(merchant.id, tables, () => applySettlementTransition(h.orm, request), {
    transfers: { [`${settlementId}:post`]: { merchant_reserved: -60_000, settlement_clearing: 60_000 } },
    events: [`${settlementId}:settlement.paid`],
  });
  expect(paid).toMatchObject({ id: settlementId, status: 'paid', paidAt: request.at });
});
