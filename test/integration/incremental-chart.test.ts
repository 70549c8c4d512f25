import { readBalances } from '../../src/persistence/ledger/account-balances';
import { openOrm, type Orm } from '../../src/persistence/orm';
import { sweepSettlement } from '../../src/persistence/settlements/settlement-store';
import type { Caller } from '../../src/services/context';
import { newId } from '../../src/support/new-id';
import { availableByDay, type ChartDay } from '../../src/web/portal/balances-chart';
import { availableByDayByWalk } from '../support/chart-by-walk';
import type { EntityManager } from '@mikro-orm/postgresql';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { until } from '../support/crash-probes';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';
import { seedFundings } from '../support/seed-postings';
import { giveSettlementAccount } from '../support/settlement-runs';
import { tableReads } from '../support/table-reads';

/**
 * Issue 34, "the chart reads daily balance snapshots, written as days close"
 * (src/persistence/ledger/balance-days.ts): on a balance with 20,000 postings over the last 40 days
 * (about 15,000 in the chart's window), a sweep today and a few postings today, the portal's chart
 * equals the walk it replaced (test/support/chart-by-walk.ts) figure for figure, and once the closed
 * days have their snapshots a view reads today's postings only (counted: the ledger_entries rows
 * fetched on the one connection the chart ran on); a day that closes is written from its own
 * postings.
 */

const HISTORY = 20_000;
const DAY_MS = 86_400_000;
const FEW_ROWS = 100;

let h: Harness;
let one: Orm;
let m: TestMerchant;
let caller: Caller;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  one = await openOrm(process.env.TEST_DATABASE_URL!, { poolMax: 1, timeouts: { lockTimeoutMs: 60_000, statementTimeoutMs: 60_000, acquireTimeoutMs: 60_000 } });
  m = await h.merchant();
  caller = { merchantId: m.id, environment: 'sandbox', keyId: 'test', merchantVerified: true };
  const scope = { merchantId: m.id, environment: 'sandbox', currency: 'GHS' };
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  // 20,000 fundings from 40 days ago to about an hour before today's midnight.
  await seedFundings(one, scope, HISTORY, new Date(today - 40 * DAY_MS), Math.floor((39 * DAY_MS + 23 * 3_600_000) / HISTORY));
  // Today: everything swept (a negative movement), then three fundings.
  await giveSettlementAccount(h, m.id);
  const swept = await sweepSettlement(h.orm, { settlementId: newId('settlement'), ...scope, environment: 'sandbox', outcome: null, runId: null, at: new Date().toISOString() }, h.deps.secretBox);
  if ('kind' in swept) throw new Error(`the sweep swept nothing: ${swept.reason}`);
  await seedFundings(one, scope, 3, new Date(), 1);
  await h.orm.em.getConnection().execute(`analyze ledger_entries`);
});
afterAll(async () => {
  await one?.close();
  await closeWithLedgerCheck(h);
});

async function availableNow(): Promise<string> {
  const figures = await readBalances(h.orm.em.fork(), m.id, 'sandbox');
  return figures.available.find((b) => b.currency === 'GHS')!.amount;
}

const chart = (orm: Orm, now = new Date()) => availableNow().then((available) => availableByDay(orm, caller, 'GHS', available, now));
// Every read of ledger_entries outside test 5 runs on `one`, whose counts tableReads flushes before
// each reading: another connection's counts can arrive up to ten seconds after its reads (PostgreSQL
// defers a flush that follows another within a second), inside a later test's measure.
const walked = (now = new Date()) => availableNow().then((available) => availableByDayByWalk(one, caller, 'GHS', available, now));
const figures = (days: ChartDay[]) => days.map((d) => ({ day: d.day, net: d.net.toString(), close: d.close.toString() }));

async function storedDays(): Promise<{ day: string; close: string }[]> {
  return h.orm.em
    .getConnection()
    .execute(`select to_char(day, 'YYYY-MM-DD') as day, close::text as close from balance_days where merchant_id = ? order by day`, [m.id]);
}

test('the first view writes the closed days of the window and shows the figures of the walk', async () => {
  const expected = await walked();
  expect(expected.filter((d) => d.net !== 0n).length).toBeGreaterThan(25);
  expect(expected.at(-1)!.net).toBeLessThan(0n); // today: the sweep
  expect(figures(await chart(one))).toEqual(figures(expected));
  const stored = await storedDays();
  expect(stored.map((d) => d.day)).toEqual(expected.slice(0, 29).map((d) => d.day));
  expect(stored.map((d) => d.close)).toEqual(expected.slice(0, 29).map((d) => d.close.toString()));
});

test('once the closed days are written, a view reads today\'s postings, not the window\'s 15,000; the figures are still the walk\'s', async () => {
  await chart(one);
  const { result, reads } = await tableReads(one, ['ledger_entries'], () => chart(one));
  // Fails if the chart walks the window again (the walk fetches every posting of it).
  expect(reads.ledger_entries).toBeLessThan(FEW_ROWS);
  expect(figures(result)).toEqual(figures(await walked()));
  const old = await tableReads(one, ['ledger_entries'], () => availableNow().then((a) => availableByDayByWalk(one, caller, 'GHS', a, new Date())));
  expect(old.reads.ledger_entries).toBeGreaterThan(10_000);
});

test('a day that closes is written from its own postings and the day before\'s snapshot (yesterday\'s row removed: as when it has just closed)', async () => {
  await chart(one);
  const yesterday = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10);
  const [{ n }] = await h.orm.em.getConnection().execute<{ n: number }[]>(
    `with gone as (delete from balance_days where merchant_id = ? and day = ?::date returning 1) select count(*)::int as n from gone`,
    [m.id, yesterday],
  );
  expect(n).toBe(1);
  const { result, reads } = await tableReads(one, ['ledger_entries'], () => chart(one));
  // Yesterday's ~500 postings and today's, not the window.
  expect(reads.ledger_entries).toBeLessThan(1_000);
  expect(reads.ledger_entries).toBeGreaterThan(300);
  expect(figures(result)).toEqual(figures(await walked()));
  expect((await storedDays()).map((d) => d.day)).toContain(yesterday);
});

test('a view asked for a later day (the days up to the database\'s today closed, the rest open) shows the walk\'s figures for that day', async () => {
  const later = new Date(Date.now() + 2 * DAY_MS);
  expect(figures(await chart(one, later))).toEqual(figures(await walked(later)));
});

test('a view waits for a transaction that holds the merchant\'s event counter (it may be dating a posting in the day about to be written), then reads the clock', async () => {
  const em = h.orm.em.fork() as EntityManager;
  await em.begin();
  let view: Promise<ChartDay[]> | undefined;
  try {
    const [{ pid }] = await em.execute<{ pid: number }[]>(`select pg_backend_pid() as pid`);
    await em.execute(`select 1 from event_counters where merchant_id = ? and environment = 'sandbox' for update`, [m.id]);
    view = chart(h.orm);
    let settled = false;
    void view.then(() => (settled = true));
    await until('the view waits for the counter', async () =>
      (await h.orm.em.getConnection().execute<{ pid: number }[]>(`select pid from pg_stat_activity where wait_event_type = 'Lock' and ? = any(pg_blocking_pids(pid))`, [Number(pid)])).length === 1,
    );
    expect(settled).toBe(false);
  } finally {
    await em.rollback();
  }
  expect(figures(await view!)).toEqual(figures(await walked()));
});
