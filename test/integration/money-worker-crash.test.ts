import path from 'node:path';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../../src/domain/settlement-start';
import { settlementStartSearchAttributePairs } from '../../src/domain/settlement-search-attributes';
import { describeLedgerProblems, ledgerCheck } from '../../src/services/ledger-check';
import { newId } from '../../src/support/new-id';
import { settlementScheduleId } from '../../src/temporal/settlement-schedule';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { lastTaskCompletedBy, until } from '../support/crash-probes';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { allEvents, expectBalancesMatchPostings, ledgerRows } from '../support/ledger-rows';
import { giveSettlementAccount } from '../support/settlement-runs';
import { succeededCharge } from '../support/succeeded-charge';
import { killAllWorkers, startWorkerChild, type WorkerChild } from '../support/worker-child';

/**
 * The crash the idempotency of every money step exists for: the worker process dies (SIGKILL) after a
 * step's transaction COMMITTED and before its workflow recorded the result, for a payout, a refund, a
 * dispute and a settlement sweep at once; a new worker replays each workflow, runs the same step
 * again (the real store function, same request: src/persistence/payouts/payout-store.ts writePayoutTransition,
 * refund-store.ts applyRefundTransition, dispute-store.ts applyDisputeOutcome, settlement-store.ts
 * sweepSettlement), which finds its work done and answers the stored record; every payment finishes
 * with each posting and each event exactly once, balances equal to the sums done by hand, and
 * `ledger check` balanced.
 *
 * The kill is deterministic: the first worker runs with test/support/crash-after-commit.ts preloaded
 * (no code of the project's own is involved), armed with the four steps' event keys. Each of the four
 * transactions commits, its store function is then held (never returns), and when all four have
 * committed the process SIGKILLs itself. One kill for the four keeps the file to one workflow-task
 * timeout (10 s: the new worker gets the tasks the dead one held once they time out).
 *
 * The API runs in this process with no worker of its own; the rows are written by the API (payout,
 * refund, dispute) or the charge store (the charges refunded and disputed), the settlement batch is
 * started as the settlement run starts it, all before the first worker starts.
 */

const HOOK = path.resolve(__dirname, '../support/crash-after-commit.ts');
const FUNDS = 1_000_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await killAllWorkers();
  if (h) await h.temporal.client.schedule.getHandle(settlementScheduleId(h.taskQueue)).delete().catch(() => undefined);
  await closeWithLedgerCheck(h);
});

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return h.orm.em.getConnection().execute<T[]>(query, params);
}

async function post(merchant: TestMerchant, route: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await h.request('sandbox', 'POST', route, { key: merchant.testKey, headers: { 'Idempotency-Key': idempotencyKey() }, body });
  if (res.status !== 200 && res.status !== 201) throw new Error(`POST ${route} answered ${res.status}: ${res.text}`);
  return res.json;
}

/** The activity types of the local-activity markers in the workflow's history: the steps it recorded. */
async function recordedSteps(id: string): Promise<string[]> {
  const history = await h.temporal.client.workflow.getHandle(id).fetchHistory();
  const types: string[] = [];
  for (const event of history.events ?? []) {
    const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    if (!data) continue;
    const marker = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string };
    if (marker.activity_type) types.push(marker.activity_type);
  }
  return types;
}

/** The workflow's result, or a failure naming what it waits for (a step that gave up says why) after `ms`. */
async function resultOf(id: string, ms = 60_000): Promise<{ id: string; status: string }> {
  const handle = h.temporal.client.workflow.getHandle(id);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void handle
        .query('chargeAttention')
        .catch(() => undefined)
        .then((attention) => reject(new Error(`${id} did not finish within ${ms} ms; its attention state: ${JSON.stringify(attention)}`)));
    }, ms);
  });
  try {
    return (await Promise.race([handle.result(), late])) as { id: string; status: string };
  } finally {
    clearTimeout(timer);
  }
}

/** Exited, or fails with the worker's output after `ms`. */
async function exitOf(worker: WorkerChild, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the armed worker did not die within ${ms} ms:\n${worker.output()}`)), ms);
  });
  try {
    return await Promise.race([worker.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('SIGKILL after the commit of a payout, refund, dispute and settlement step, before their workflows record it: a new worker finishes each exactly once', async () => {
  // One merchant per payment, so each balance can be summed by hand.
  const [payer, refunder, disputed, settled] = await Promise.all([h.merchant(), h.merchant(), h.merchant(), h.merchant()]);

  await fundMerchant(h, payer.id, FUNDS);
  const payout = await post(payer, '/v1/payouts', {
    amount: 40_000,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    recipient: { identifier: '233241234567', name: 'Kofi Boateng' },
    reference: 'crash-after-commit',
  });
  expect(payout.status).toBe('pending');

  const refunded = await succeededCharge(h, refunder, 15_000, FUNDS);
  const refund = await post(refunder, '/v1/refunds', { charge: refunded.id, amount: 9_000 });
  expect(refund.status).toBe('pending');

  const charged = await succeededCharge(h, disputed, 15_000, FUNDS);
  const dispute = await post(disputed, `/v1/sandbox/charges/${charged.id}/disputes`, { amount: 7_000 });
  expect(dispute.status).toBe('needs_response');

  await giveSettlementAccount(h, settled.id);
  await fundMerchant(h, settled.id, 52_000);
  const start: SettlementStart = { settlementId: newId('settlement'), merchantId: settled.id, environment: 'sandbox', currency: 'GHS', outcome: null, runId: null };
  await h.temporal.client.workflow.start(SETTLEMENT_WORKFLOW_TYPE, {
    workflowId: start.settlementId,
    taskQueue: taskQueueFor(h.taskQueue, 'sandbox'),
    args: [start],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: settlementStartSearchAttributePairs(start),
  });

  const steps = [
    { id: payout.id as string, key: `${payout.id}:payout.succeeded`, activity: 'payoutTransition' },
    { id: refund.id as string, key: `${refund.id}:refund.succeeded`, activity: 'applyRefundTransition' },
    { id: dispute.id as string, key: `${dispute.id}:dispute.lost`, activity: 'applyDisputeOutcome' },
    { id: start.settlementId, key: `${start.settlementId}:settlement.created`, activity: 'sweepSettlement' },
  ];

  // The first worker: its dispute evidence window is one second, so the dispute is lost as soon as
  // its workflow begins; payout and refund succeed on their three-second sandbox rail; the batch
  // sweeps at once. It dies once the four have committed.
  const reports: unknown[] = [];
  const first = await startWorkerChild({
    taskQueue: h.taskQueue,
    preload: [HOOK],
    // Four steps held at once need four sandbox local-activity slots (3 by default): 12 slots give
    // the sandbox queue 5 (src/runtime/worker-capacity.ts), the pool grown to fit.
    env: {
      CRASH_AFTER_COMMIT_OF: steps.map((s) => s.key).join(','),
      DISPUTE_EVIDENCE_WINDOW: '1s',
      WORKER_LOCAL_ACTIVITY_SLOTS: '12',
      WORKER_DB_POOL_MAX: '30',
    },
  });
  first.child.on('message', (message) => reports.push(message));
  expect(await exitOf(first, 60_000)).toEqual({ code: null, signal: 'SIGKILL' });
  // The hook's IPC report may be read just after the exit.
  await until('the hook reported what committed', async () => reports.length > 0, 50);
  expect(reports).toContainEqual({ crashAfterCommit: expect.arrayContaining(steps.map((s) => s.key)) });

  // At the crash: each step committed (its row, its event), and no workflow recorded it.
  const committed = await sql<{ key: string }>(`select dedupe_key as key from events where dedupe_key = any(?::text[])`, [`{${steps.map((s) => s.key).join(',')}}`]);
  expect(committed.map((r) => r.key).sort()).toEqual(steps.map((s) => s.key).sort());
  expect(await sql(`select status from payouts where id = ?`, [payout.id])).toEqual([{ status: 'succeeded' }]);
  expect(await sql(`select status from refunds where id = ?`, [refund.id])).toEqual([{ status: 'succeeded' }]);
  expect(await sql(`select status from disputes where id = ?`, [dispute.id])).toEqual([{ status: 'lost' }]);
  expect(await sql(`select status from settlements where id = ?`, [start.settlementId])).toEqual([{ status: 'pending' }]);
  for (const step of steps) {
    expect({ id: step.id, status: (await h.temporal.client.workflow.getHandle(step.id).describe()).status.name }).toEqual({ id: step.id, status: 'RUNNING' });
    expect({ id: step.id, recorded: (await recordedSteps(step.id)).includes(step.activity) }).toEqual({ id: step.id, recorded: false });
  }

  // A new worker runs each step again and finishes each payment.
  const second = await startWorkerChild({ taskQueue: h.taskQueue });
  const results = await Promise.all(steps.map((s) => resultOf(s.id)));
  expect(results.map((r) => [r.id, r.status])).toEqual([
    [payout.id, 'succeeded'],
    [refund.id, 'succeeded'],
    [dispute.id, 'lost'],
    [start.settlementId, 'paid'],
  ]);
  for (const step of steps) {
    // Recorded once, by the new worker, whose run of the step wrote nothing (the event is still the first one).
    expect({ id: step.id, recorded: (await recordedSteps(step.id)).filter((a) => a === step.activity) }).toEqual({ id: step.id, recorded: [step.activity] });
    expect({ id: step.id, by: await lastTaskCompletedBy(h, step.id) }).toEqual({ id: step.id, by: second.identity });
  }

  // Each posting once, each event once, sequences without gap, balances by hand.
  const once = async (merchant: TestMerchant, resourceId: string, transfers: Record<string, Record<string, number>>, events: string[]) => {
    const rows = (await ledgerRows(h, merchant.id)).filter((r) => r.resource_id === resourceId);
    for (const r of rows) expect([r.transfer_id, r.account, r.n]).toEqual([r.transfer_id, r.account, '1']);
    const byTransfer: Record<string, Record<string, number>> = {};
    for (const r of rows) (byTransfer[r.transfer_id] ??= {})[r.account] = Number(r.amount);
    expect(byTransfer).toEqual(transfers);
    const log = await allEvents(h, merchant);
    expect(log.map((e) => e.sequence)).toEqual(Array.from({ length: log.length }, (_, i) => i + 1));
    expect(log.filter((e) => e.resource_id === resourceId).map((e) => e.type)).toEqual(events);
    await expectBalancesMatchPostings(h.orm, merchant.id);
  };

  const debit = payout.total_debit as number;
  await once(
    payer,
    payout.id,
    {
      [`${payout.id}:reserve`]: { merchant_available: -debit, merchant_reserved: debit },
      [`${payout.id}:post`]: { merchant_reserved: -debit, payout_clearing: payout.amount, platform_fee: payout.fee.platform, tax: payout.fee.tax },
    },
    ['payout.initiated', 'payout.succeeded'],
  );
  expect(await balanceRows(h, payer.id)).toMatchObject({ merchant_available: FUNDS - debit, merchant_reserved: 0 });

  await once(
    refunder,
    refund.id,
    {
      [`${refund.id}:reserve`]: { merchant_available: -9_000, merchant_reserved: 9_000 },
      [`${refund.id}:post`]: { merchant_reserved: -9_000, refund_clearing: 9_000 },
    },
    ['refund.created', 'refund.succeeded'],
  );
  expect(await balanceRows(h, refunder.id)).toMatchObject({ merchant_available: refunded.merchantAmount + FUNDS - 9_000, merchant_reserved: 0 });
  expect(await sql(`select amount_refunded::int as refunded from charges where id = ?`, [refunded.id])).toEqual([{ refunded: 9_000 }]);

  await once(
    disputed,
    dispute.id,
    {
      [`${dispute.id}:hold`]: { merchant_available: -7_000, merchant_reserved: 7_000 },
      [`${dispute.id}:debit`]: { merchant_reserved: -7_000, dispute_clearing: 7_000 },
    },
    ['dispute.opened', 'dispute.evidence_required', 'dispute.lost'],
  );
  expect(await balanceRows(h, disputed.id)).toMatchObject({ merchant_available: charged.merchantAmount + FUNDS - 7_000, merchant_reserved: 0 });

  await once(
    settled,
    start.settlementId,
    {
      [`${start.settlementId}:sweep`]: { merchant_available: -52_000, merchant_reserved: 52_000 },
      [`${start.settlementId}:post`]: { merchant_reserved: -52_000, settlement_clearing: 52_000 },
    },
    ['settlement.created', 'settlement.paid'],
  );
  expect(await balanceRows(h, settled.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 52_000 });
  // The batch marked the funding posting and its own sweep posting, once each.
  expect(await sql(`select count(*)::int as n from settlement_entries where settlement_id = ?`, [start.settlementId])).toEqual([{ n: 2 }]);

  const report = await ledgerCheck(h.orm);
  if (!report.ok) throw new Error(describeLedgerProblems(report));
  await second.stop();
  expect(await second.exited).toEqual({ code: 0, signal: null });
});
