/**
 * The settlement Schedule (src/temporal/settlement-schedule.ts) on the suite's Temporal dev server,
 * and the runs it starts against the suite's PostgreSQL with this file's payments worker:
 * ensureSettlementSchedule is idempotent (one Schedule per deployment, brought up to date, a pause
 * kept); a triggered run starts a batch per merchant, environment and currency with money and a
 * settlement account, and skips, with the reason kept, merchants without one and (no live rail yet)
 * live balances; runs repeated, or at once, move each amount once.
 *
 * The scheduled run spans the whole suite database (every merchant with money), as in production;
 * the assertions look at this file's merchants only.
 */
import type { ScheduleDescription } from '@temporalio/client';
import { LIVE_RAIL_UNAVAILABLE, type SettlementRunResult } from '../../src/domain/settlement-run';
import { describeLedgerProblems, ledgerCheck } from '../../src/services/ledger-check';
import { ensureSettlementSchedule, settlementScheduleId } from '../../src/temporal/settlement-schedule';
import { runSettlementNow } from '../../src/temporal/settlement-run-start';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { startHarness, type Harness, PAYMENT_QUEUES } from '../support/harness';
import { expectBalancesMatchPostings } from '../support/ledger-rows';
import { batchResults, batchRows, giveSettlementAccount, settlementTransfers, skipRow } from '../support/settlement-runs';
import { killAllWorkers, startWorkerChild } from '../support/worker-child';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
});
afterAll(async () => {
  await killAllWorkers();
  if (h) {
    await h.temporal.client.schedule.getHandle(settlementScheduleId(h.taskQueue)).delete().catch(() => undefined);
    const report = await ledgerCheck(h.orm);
    await h.close();
    if (!report.ok) throw new Error(describeLedgerProblems(report));
  }
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Bounded retries until `done` (the Schedule records a triggered action a moment after the call). */
async function until<T>(what: string, look: () => Promise<T>, done: (value: T) => boolean, attempts = 150): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await look();
    if (done(value)) return value;
    if (i >= attempts) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

/** The merchant's batches of one run, once `count` of them are written (sorted by environment). */
async function batchesOfRun(merchantId: string, runId: string, count: number) {
  const rows = await until(`${count} batches of ${merchantId} in ${runId}`, async () => (await batchRows(h, merchantId)).filter((r) => r.run_id === runId), (r) => r.length >= count);
  return rows.sort((x, y) => x.environment.localeCompare(y.environment));
}

const schedule = () => h.temporal.client.schedule.getHandle(settlementScheduleId(h.taskQueue));

/** The Schedule's hours and minutes (the server keeps a cron expression as calendar specs). */
const times = (d: ScheduleDescription) => (d.spec.calendars ?? []).map((c) => ({ hour: c.hour, minute: c.minute }));

/** Triggers the Schedule now and waits for the run it starts (through its continue-as-new runs). */
async function triggerRun(): Promise<SettlementRunResult> {
  const before = (await schedule().describe()).info.recentActions.length;
  await schedule().trigger();
  const described = await until('the Schedule records the triggered run', () => schedule().describe(), (d) => d.info.recentActions.length > before);
  const { workflowId } = described.info.recentActions.at(-1)!.action.workflow;
  expect(workflowId.startsWith(`settlement-run-${h.taskQueue}-`)).toBe(true);
  return h.temporal.client.workflow.getHandle(workflowId).result() as Promise<SettlementRunResult>;
}

test('ensureSettlementSchedule: created once, then brought up to date (one Schedule, the new cron), a pause kept; a cron Temporal refuses names SETTLEMENT_SCHEDULE', async () => {
  const id = settlementScheduleId(h.taskQueue);
  expect(await ensureSettlementSchedule(h.temporal.client, { taskQueue: h.taskQueue, cron: '0 2 * * *' })).toEqual({ scheduleId: id, created: true });
  const first = await schedule().describe();
  expect(times(first)).toEqual([{ hour: [{ start: 2, end: 2, step: 1 }], minute: [{ start: 0, end: 0, step: 1 }] }]);
  expect(first.spec.timezone).toBe('UTC');
  expect(first.policies).toMatchObject({ overlap: 'SKIP', catchupWindow: 24 * 3600_000 });
  expect(first.action).toMatchObject({ type: 'startWorkflow', workflowType: 'settlementRunWorkflow', workflowId: id, taskQueue: `${h.taskQueue}-live`, args: [{}] });
  expect(first.state.paused).toBe(false);

  expect(await ensureSettlementSchedule(h.temporal.client, { taskQueue: h.taskQueue, cron: '30 3 * * *' })).toEqual({ scheduleId: id, created: false });
  const second = await schedule().describe();
  expect(times(second)).toEqual([{ hour: [{ start: 3, end: 3, step: 1 }], minute: [{ start: 30, end: 30, step: 1 }] }]);
  expect(second.info.createdAt).toEqual(first.info.createdAt);
  expect(second.info.nextActionTimes[0].getUTCHours()).toBe(3);

  // Paused by an operator (Temporal UI): the next worker start does not resume it.
  await schedule().pause('paused by an operator');
  await ensureSettlementSchedule(h.temporal.client, { taskQueue: h.taskQueue, cron: '30 3 * * *' });
  expect((await schedule().describe()).state).toMatchObject({ paused: true, note: 'paused by an operator' });
  await schedule().unpause('resumed');

  // One Schedule under the deployment's id (visibility follows the writes a moment later).
  const listed = await until(
    'the Schedule is listed',
    async () => {
      const ids: string[] = [];
      for await (const s of h.temporal.client.schedule.list()) if (s.scheduleId.startsWith('settlement-run-') && s.scheduleId.includes(h.taskQueue)) ids.push(s.scheduleId);
      return ids;
    },
    (ids) => ids.length > 0,
  );
  expect(listed).toEqual([id]);

  await expect(ensureSettlementSchedule(h.temporal.client, { taskQueue: h.taskQueue, cron: '99 2 * * *' })).rejects.toThrow(/^SETTLEMENT_SCHEDULE "99 2 \* \* \*" was refused by Temporal: /);
  expect(times(await schedule().describe())).toEqual(times(second));
});

test('a triggered run: a batch per merchant and currency with a settlement account, each of exactly its own money; merchants without one, and live balances (no live rail), skipped with the reason kept; a repeated run moves nothing twice', async () => {
  await ensureSettlementSchedule(h.temporal.client, { taskQueue: h.taskQueue, cron: '0 2 * * *' });
  const a = await h.merchant();
  const c = await h.merchant();
  const b = await h.merchant();
  await giveSettlementAccount(h, a.id);
  await giveSettlementAccount(h, c.id, '5566778899');
  await fundMerchant(h, a.id, 40_000, 'GHS', 'sandbox');
  await fundMerchant(h, a.id, 25_000, 'GHS', 'live');
  await fundMerchant(h, c.id, 15_000, 'GHS', 'sandbox');
  await fundMerchant(h, c.id, 6_000, 'GHS', 'live');
  await fundMerchant(h, b.id, 10_000, 'GHS', 'sandbox');

  const run = await triggerRun();
  expect(run.runId.startsWith(`settlement-run-${h.taskQueue}-`)).toBe(true);
  // The result names the first 100 batches and skips of the whole database; the batch rows (written
  // by each batch's sweep, a moment after its start) and the kept skips name this test's.
  const a1 = await batchesOfRun(a.id, run.runId, 1);
  const c1 = await batchesOfRun(c.id, run.runId, 1);
  expect(a1.map((r) => `${r.environment}/${r.currency}`)).toEqual(['sandbox/GHS']);
  expect(c1.map((r) => `${r.environment}/${r.currency}`)).toEqual(['sandbox/GHS']);
  expect(await skipRow(h, b.id, 'sandbox')).toEqual({ reason: 'no settlement account', run_id: run.runId });
  // No live rail: a live batch could only fail and wait (payments stuck), every run; the run skips live balances instead.
  expect(await skipRow(h, a.id, 'live')).toEqual({ reason: LIVE_RAIL_UNAVAILABLE, run_id: run.runId });
  expect(await skipRow(h, c.id, 'live')).toEqual({ reason: LIVE_RAIL_UNAVAILABLE, run_id: run.runId });
  expect(run.skipped).toBeGreaterThanOrEqual(3);

  // Sandbox batches are paid through the simulator; live money stays available.
  await batchResults(h, [...a1, ...c1].map((r) => r.id));
  const expected = (sandbox: number) => [{ environment: 'sandbox', currency: 'GHS', status: 'paid', amount: sandbox, run_id: run.runId }];
  const rows = async (m: { id: string }) => (await batchRows(h, m.id)).map(({ id: _, ...r }) => r);
  expect(await rows(a)).toEqual(expected(40_000));
  expect(await rows(c)).toEqual(expected(15_000));
  expect(await balanceRows(h, a.id, 'GHS', 'sandbox')).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 40_000 });
  expect(await balanceRows(h, a.id, 'GHS', 'live')).toMatchObject({ merchant_available: 25_000, merchant_reserved: 0 });
  expect(await balanceRows(h, c.id, 'GHS', 'live')).toMatchObject({ merchant_available: 6_000, merchant_reserved: 0 });
  expect((await balanceRows(h, b.id, 'GHS', 'sandbox')).merchant_available).toBe(10_000);
  expect(await batchRows(h, b.id)).toEqual([]);

  // The Schedule again: nothing of the paid sandbox money moves twice; the live balances are skipped again.
  const again = await triggerRun();
  for (const m of [a, c]) {
    expect(await skipRow(h, m.id, 'live')).toEqual({ reason: LIVE_RAIL_UNAVAILABLE, run_id: again.runId });
    expect(await batchRows(h, m.id)).toHaveLength(1);
    for (const t of await settlementTransfers(h, m.id)) expect([t.transfer_id, t.n]).toEqual([t.transfer_id, 2]);
    await expectBalancesMatchPostings(h.orm, m.id);
  }
  expect(await skipRow(h, b.id, 'sandbox')).toEqual({ reason: 'no settlement account', run_id: again.runId });
});

test('two runs at once for one balance (as the Schedule and settlements run may be): one batch sweeps it, the other finds nothing', async () => {
  const m = await h.merchant();
  await giveSettlementAccount(h, m.id);
  await fundMerchant(h, m.id, 33_000, 'GHS', 'sandbox');

  const runs = await Promise.all([1, 2].map(() => runSettlementNow(h.temporal.client, h.taskQueue, { merchantId: m.id, environment: 'sandbox' })));
  const ids = runs.flatMap((r) => r.batches.map((x) => x.settlementId));
  expect(ids).toHaveLength(2);
  const outcomes = await batchResults(h, ids);
  expect(outcomes.map((o) => (o.kind === 'batch' ? `${o.status} ${o.amount}` : o.kind)).sort()).toEqual(['nothing', 'paid 33000']);
  expect(await batchRows(h, m.id)).toHaveLength(1);
  expect((await settlementTransfers(h, m.id)).map((t) => [t.kind, t.n])).toEqual(
    expect.arrayContaining([
      ['settlement_sweep', 2],
      ['settlement_post', 2],
    ]),
  );
  expect(await settlementTransfers(h, m.id)).toHaveLength(2);
  expect(await balanceRows(h, m.id, 'GHS', 'sandbox')).toMatchObject({ merchant_available: 0, settlement_clearing: 33_000 });
  await expectBalancesMatchPostings(h.orm, m.id);
});

test.each([
  ['daily', /^SETTLEMENT_SCHEDULE must be a cron expression in UTC such as "0 2 \* \* \*" \(daily at 02:00\): it has 1 field, not 5/m],
  ['99 2 * * *', /^SETTLEMENT_SCHEDULE "99 2 \* \* \*" was refused by Temporal: /m],
])('the worker (workers/main.ts) with SETTLEMENT_SCHEDULE=%j stops at start-up with one line naming the setting', async (cron, message) => {
  const error = await startWorkerChild({ taskQueue: `${h.taskQueue}-bad`, env: { SETTLEMENT_SCHEDULE: cron } }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toMatch(/^worker exited \(code 1, signal null\) before it was ready/);
  expect(error?.message).toMatch(message);
  expect(error?.message).not.toMatch(/\n\s+at /); // no stack trace
});
