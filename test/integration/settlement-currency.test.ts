/**
 * A currency is settled only into a bank account of that currency (banks.currency, GET
 * /v1/reference/banks), against the suite's PostgreSQL and Temporal with the payments worker: a
 * merchant has one settlement account, so a settlement run settles its balances in the account's
 * currency and skips the others with the reason kept (`settlements skipped`, both currencies named),
 * and a batch started directly for a balance in another currency (by hand, or by a run from before
 * the rule) ends `nothing` at its sweep and moves no money.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { Environment } from '../../src/domain/environment';
import { NOTHING_TO_SETTLE } from '../../src/domain/settlement';
import { LIVE_RAIL_UNAVAILABLE, SETTLEMENT_CURRENCY_MISMATCH } from '../../src/domain/settlement-run';
import { settlementStartSearchAttributePairs } from '../../src/domain/settlement-search-attributes';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../../src/domain/settlement-start';
import { runSettlements } from '../../src/services/settlement-run';
import { newId } from '../../src/support/new-id';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { ok } from '../support/cli-results';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { runCli } from '../support/run-cli';
import { batchResults, batchRows, giveSettlementAccount, settlementTransfers, skipRow } from '../support/settlement-runs';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
});
afterAll(() => closeWithLedgerCheck(h));

/** GCB takes GHS and GTB takes NGN (migrations/Migration20261122000002_reference_data.ts). */
const GHS_BANK = 'GCB';
const NGN_BANK = 'GTB';

const run = (merchantId: string, environment?: Environment) =>
  runSettlements({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue }, { merchantId, ...(environment ? { environment } : {}) });

/** A batch started directly, as a run starts one (workflow id = settlement id, its search attributes, its environment's queue). */
function startBatch(merchant: TestMerchant, environment: Environment, currency: string): Promise<WorkflowHandle> {
  const start: SettlementStart = { settlementId: newId('settlement'), merchantId: merchant.id, environment, currency, outcome: null, runId: 'run_by_hand' };
  return h.temporal.client.workflow.start(SETTLEMENT_WORKFLOW_TYPE, {
    workflowId: start.settlementId,
    taskQueue: taskQueueFor(h.taskQueue, environment),
    args: [start],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: settlementStartSearchAttributePairs(start),
  });
}

test('a GHS account and GHS + NGN balances: the run settles GHS only; NGN is skipped with both currencies named, kept for `settlements skipped`, and settled once the account is an NGN one', async () => {
  const m = await h.merchant({ verified: true });
  await giveSettlementAccount(h, m.id, '0012345678901', GHS_BANK);
  await fundMerchant(h, m.id, 20_000, 'GHS', 'sandbox');
  await fundMerchant(h, m.id, 7_000, 'NGN', 'sandbox');
  await fundMerchant(h, m.id, 3_000, 'GHS', 'live');
  await fundMerchant(h, m.id, 4_000, 'NGN', 'live');

  const first = await run(m.id);
  const mismatch = (environment: Environment) => ({ merchant_id: m.id, environment, currency: 'NGN', reason: `${SETTLEMENT_CURRENCY_MISMATCH}: bank GCB takes GHS, balance is NGN` });
  expect(first).toMatchObject({ started: 1, skipped: 3 });
  expect(first.batches).toEqual([{ id: expect.any(String), merchant_id: m.id, environment: 'sandbox', currency: 'GHS' }]);
  // Live NGN: the mismatch (an operator can fix it) is named, not the missing live rail.
  expect(first.skips).toEqual([
    { merchant_id: m.id, environment: 'live', currency: 'GHS', reason: LIVE_RAIL_UNAVAILABLE },
    mismatch('live'),
    mismatch('sandbox'),
  ]);
  expect(await batchResults(h, [first.batches[0].id])).toMatchObject([{ kind: 'batch', status: 'paid', currency: 'GHS', amount: 20_000 }]);
  expect(await batchRows(h, m.id)).toEqual([{ id: first.batches[0].id, environment: 'sandbox', currency: 'GHS', status: 'paid', amount: 20_000, run_id: first.id }]);
  expect(await balanceRows(h, m.id, 'NGN', 'sandbox')).toEqual({ merchant_available: 7_000, merchant_reserved: 0, customer_clearing: -7_000 });
  expect(await balanceRows(h, m.id, 'NGN', 'live')).toEqual({ merchant_available: 4_000, merchant_reserved: 0, customer_clearing: -4_000 });

  // Kept, and shown by `settlements skipped` as recorded.
  expect(await skipRow(h, m.id, 'sandbox', 'NGN')).toEqual({ reason: mismatch('sandbox').reason, run_id: first.id });
  const skipped = ok(await runCli(h.taskQueue, 'settlements', 'skipped', '--merchant', m.id, '--env', 'test'));
  expect(skipped.data).toEqual([{ ...mismatch('sandbox'), run_id: first.id, skipped_at: expect.any(String) }]);

  // The operator moves the account to an NGN bank: the next run settles NGN and forgets its skip;
  // new GHS money is now the balance in another currency.
  await giveSettlementAccount(h, m.id, '0098765432101', NGN_BANK);
  await fundMerchant(h, m.id, 1_500, 'GHS', 'sandbox');
  const second = await run(m.id, 'sandbox');
  expect(second).toMatchObject({ started: 1, skipped: 1 });
  expect(second.batches).toEqual([{ id: expect.any(String), merchant_id: m.id, environment: 'sandbox', currency: 'NGN' }]);
  expect(second.skips).toEqual([{ merchant_id: m.id, environment: 'sandbox', currency: 'GHS', reason: `${SETTLEMENT_CURRENCY_MISMATCH}: bank GTB takes NGN, balance is GHS` }]);
  expect(await batchResults(h, [second.batches[0].id])).toMatchObject([{ kind: 'batch', status: 'paid', currency: 'NGN', amount: 7_000 }]);
  expect(await skipRow(h, m.id, 'sandbox', 'NGN')).toBeUndefined();
  expect(await skipRow(h, m.id, 'live', 'NGN')).toEqual({ reason: mismatch('live').reason, run_id: first.id });
  expect(await balanceRows(h, m.id, 'NGN', 'sandbox')).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 7_000 });
  expect((await balanceRows(h, m.id, 'GHS', 'sandbox')).merchant_available).toBe(1_500);
});

test.each(['sandbox', 'live'] as const)(
  'a %s batch started directly for an NGN balance of a merchant with a GHS account ends `nothing` (currency mismatch): no batch row, no ledger posting, the money stays available',
  async (environment) => {
    const m = await h.merchant({ verified: true });
    await giveSettlementAccount(h, m.id, '0012345678901', GHS_BANK);
    await fundMerchant(h, m.id, 6_000, 'NGN', environment);

    const handle = await startBatch(m, environment, 'NGN');
    expect(await handle.result()).toEqual({ kind: 'nothing', reason: NOTHING_TO_SETTLE.currencyMismatch });
    expect(await batchRows(h, m.id)).toEqual([]);
    expect(await settlementTransfers(h, m.id)).toEqual([]);
    expect(await balanceRows(h, m.id, 'NGN', environment)).toEqual({ merchant_available: 6_000, merchant_reserved: 0, customer_clearing: -6_000 });
    const swept = await h.orm.em
      .getConnection()
      .execute<{ n: number }[]>(`select count(*)::int as n from settlement_entries se join ledger_entries le on le.transfer_id = se.transfer_id where le.merchant_id = ?`, [m.id]);
    expect(swept[0].n).toBe(0);
  },
);
