import type { EntityManager } from '@mikro-orm/postgresql';
import type { SettlementRunResult } from '../../src/domain/settlement-run';
import { describeLedgerProblems, ledgerCheck } from '../../src/services/ledger-check';
import { randomBase62 } from '../../src/support/new-id';
import { settlementScheduleId } from '../../src/temporal/settlement-schedule';
import { settlementRunStartOptions } from '../../src/temporal/settlement-run-start';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { lastTaskCompletedBy, lockWaiters, until } from '../support/crash-probes';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { startHarness, type Harness } from '../support/harness';
import { expectBalancesMatchPostings } from '../support/ledger-rows';
import { batchResults, batchRows, giveSettlementAccount, settlementTransfers, skipRow } from '../support/settlement-runs';
import { killAllWorkers, startWorkerChild } from '../support/worker-child';

/**
 * Crash recovery of a settlement run with the real worker process (workers/main.ts): SIGKILL it while
 * the run is half-way (batches started for the first merchants and in flight, the run waiting on a
 * page), start a new one, and check that every balance is swept exactly once: one batch per merchant
 * with exactly its money, paid; each settlement transfer posted once; balances equal their postings;
 * `ledger check` balanced. The API runs in this process with no worker of its own.
 *
 * The run is started after a key of this file's own (merchants `mer_zzzzzz<run>…`, created in key
 * order), so its pages hold these merchants only whatever else the suite database holds.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await killAllWorkers();
  if (h) await h.temporal.client.schedule.getHandle(settlementScheduleId(h.taskQueue)).delete().catch(() => undefined);
  await closeWithLedgerCheck(h);
});
afterEach(() => killAllWorkers());

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return h.orm.em.getConnection().execute<T[]>(query, params);
}

test('SIGKILL of the worker half-way through a settlement run: after a restart every balance is swept exactly once', async () => {
  // 12 merchants in key order; the 7th has no settlement account (the run skips it).
  const prefix = `mer_zzzzzz${randomBase62(4)}`;
  const merchants = Array.from({ length: 12 }, (_, i) => ({ id: `${prefix}${String(i).padStart(2, '0')}${randomBase62(12)}`, amount: 10_000 + i * 101, account: i !== 6 }));
  for (const m of merchants) {
    await sql(`insert into merchants (id, name, created_at) values (?, ?, now())`, [m.id, `Crash ${m.id.slice(-4)}`]);
    if (m.account) await giveSettlementAccount(h, m.id);
    await fundMerchant(h, m.id, m.amount, 'GHS', 'sandbox');
  }
  const skipped = merchants[6];

  // The test's own uncommitted skip of the 7th merchant: the run's page that records it waits on it.
  const blocker = h.orm.em.fork() as EntityManager;
  await blocker.begin();
  let released = false;
  const release = async () => {
    if (!released) await blocker.rollback();
    released = true;
  };
  try {
    await blocker.execute(`insert into settlement_skips (merchant_id, environment, currency, reason, run_id, skipped_at) values (?, 'sandbox', 'GHS', 'held by the test', 'test', now())`, [skipped.id]);

    const first = await startWorkerChild({ taskQueue: h.taskQueue });
    // The worker ensured the deployment's settlement Schedule at start-up.
    expect((await h.temporal.client.schedule.getHandle(settlementScheduleId(h.taskQueue)).describe()).action).toMatchObject({ workflowType: 'settlementRunWorkflow' });

    // Pages of 2, two pages per run: [0 1] [2 3] | continue-as-new | [4 5] [6 7] ← waits on the skip of 6.
    const options = settlementRunStartOptions(h.taskQueue, { environment: 'sandbox', after: { merchantId: prefix, environment: 'sandbox', currency: '' }, limits: { pageSize: 2, pagesPerRun: 2 } });
    const run = await h.temporal.client.workflow.start('settlementRunWorkflow', options);
    await until('the run waits on the page of the 7th merchant', async () => (await lockWaiters(h, 'settlement_skips')) >= 1);
    await first.kill();
    await release();

    // At the crash: batches for the first six merchants at most, none beyond the page it waited on.
    for (const m of merchants.slice(6)) expect(await batchRows(h, m.id)).toEqual([]);
    expect((await sql(`select 1 from settlements where merchant_id = any(?::text[])`, [`{${merchants.slice(0, 6).map((m) => m.id).join(',')}}`])).length).toBeGreaterThan(0);

    const second = await startWorkerChild({ taskQueue: h.taskQueue });
    const result = (await run.result()) as SettlementRunResult;
    const mine = result.batches.filter((b) => b.merchantId.startsWith(prefix));
    expect(mine.map((b) => b.merchantId)).toEqual(merchants.filter((m) => m.account).map((m) => m.id));
    expect(new Set(mine.map((b) => b.settlementId)).size).toBe(11);
    expect(result.skips.filter((s) => s.merchantId.startsWith(prefix))).toEqual([{ merchantId: skipped.id, environment: 'sandbox', currency: 'GHS', reason: 'no settlement account' }]);
    expect(result.continuations).toBeGreaterThanOrEqual(2);
    expect(await lastTaskCompletedBy(h, run.workflowId)).toBe(second.identity);

    const outcomes = await batchResults(h, mine.map((b) => b.settlementId));
    expect(outcomes.map((o) => (o.kind === 'batch' ? [o.merchantId, o.status, o.amount] : o))).toEqual(merchants.filter((m) => m.account).map((m) => [m.id, 'paid', m.amount]));
    for (const m of merchants) {
      if (!m.account) continue;
      expect((await batchRows(h, m.id)).map((r) => [r.status, r.amount, r.run_id])).toEqual([['paid', m.amount, run.workflowId]]);
      expect((await settlementTransfers(h, m.id)).map((t) => [t.kind, t.n]).sort()).toEqual([
        ['settlement_post', 2],
        ['settlement_sweep', 2],
      ]);
      expect(await balanceRows(h, m.id, 'GHS', 'sandbox')).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: m.amount });
      await expectBalancesMatchPostings(h.orm, m.id);
    }
    expect(await batchRows(h, skipped.id)).toEqual([]);
    expect(await skipRow(h, skipped.id, 'sandbox')).toEqual({ reason: 'no settlement account', run_id: run.workflowId });
    expect((await balanceRows(h, skipped.id, 'GHS', 'sandbox')).merchant_available).toBe(skipped.amount);

    const report = await ledgerCheck(h.orm);
    if (!report.ok) throw new Error(describeLedgerProblems(report));
    await second.stop();
    expect(await second.exited).toEqual({ code: 0, signal: null });
  } finally {
    await release();
  }
});
