import type { EntityManager } from '@mikro-orm/postgresql';
import { SWEEP_MARKS_BACKFILL } from '../../migrations/Migration20261212000001_sweep_marks_balance_days';
import { applyChargeTransition } from '../../src/persistence/charges/charge-store';
import { openOrm, type Orm } from '../../src/persistence/orm';
import { applySettlementTransition, sweepSettlement } from '../../src/persistence/settlements/settlement-store';
import { newId } from '../../src/support/new-id';
import type { SettlementRecord, SettlementNothing } from '../../src/domain/settlement';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { until } from '../support/crash-probes';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';
import { seedFundings } from '../support/seed-postings';
import { giveSettlementAccount } from '../support/settlement-runs';
import { accept, draftCharge } from '../support/stored-charges';
import { tableReads } from '../support/table-reads';

/**
 * Issue 34, "the sweep works from a high-water mark, not a rescan" (src/persistence/settlements/sweep-mark.ts):
 * a balance with 20,000 swept postings and a few new ones is swept reading the new ones (counted:
 * the ledger_entries rows the sweep's statements fetched, pg_stat_user_tables on the one connection
 * the sweep ran on), and sweeps exactly what the full scan of the unswept postings (the code before
 * the mark) finds: the same postings, count and sum. A posting behind the mark (written outside the
 * state-change path, dated earlier) is still swept (the one rescan); a capture that waited for the
 * sweep's lock on the balance row is swept by the next sweep.
 */

const HISTORY = 20_000;
/** The bound a sweep of a few new postings stays under: the new rows and the few statements' lookups, nothing like the history. */
const FEW_ROWS = 200;

let h: Harness;
/** One connection: its table counts are the sweep's own (test/support/table-reads.ts). */
let one: Orm;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  one = await openOrm(process.env.TEST_DATABASE_URL!, { poolMax: 1, timeouts: { lockTimeoutMs: 60_000, statementTimeoutMs: 60_000, acquireTimeoutMs: 60_000 } });
});
afterAll(async () => {
  await one?.close();
  await closeWithLedgerCheck(h);
});

async function sql<T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
  return h.orm.em.getConnection().execute<T[]>(query, params);
}

const scopeOf = (m: TestMerchant) => ({ merchantId: m.id, environment: 'sandbox' as const, currency: 'GHS' });

/** The balances whose sweep read the whole unswept set (sweepSettlement's onRescan). */
let rescans: { merchantId: string; postings: number }[] = [];
beforeEach(() => {
  rescans = [];
});

function sweep(orm: Orm, m: TestMerchant): Promise<SettlementRecord | SettlementNothing> {
  return sweepSettlement(orm, { settlementId: newId('settlement'), ...scopeOf(m), outcome: null, runId: null, at: new Date().toISOString() }, h.deps.secretBox, () => {}, 'none', (b) =>
    rescans.push({ merchantId: b.merchantId, postings: b.postings }),
  );
}

function batchOf(result: SettlementRecord | SettlementNothing): SettlementRecord {
  if ('kind' in result) throw new Error(`the sweep swept nothing: ${result.reason}`);
  return result;
}

/** What the sweep before issue 34 swept: every unswept merchant_available posting of the balance, read in full. */
async function fullScanUnswept(m: TestMerchant): Promise<{ ids: string[]; total: bigint }> {
  const rows = await sql<{ transfer_id: string; amount: string }>(
    `select le.transfer_id, le.amount::text as amount from ledger_entries le
     where le.merchant_id = ? and le.environment = 'sandbox' and le.currency = 'GHS' and le.account = 'merchant_available'
       and not exists (select 1 from settlement_entries se where se.transfer_id = le.transfer_id and se.account = le.account)
     order by le.transfer_id`,
    [m.id],
  );
  return { ids: rows.map((r) => r.transfer_id), total: rows.reduce((a, r) => a + BigInt(r.amount), 0n) };
}

async function sweptIds(batch: SettlementRecord): Promise<string[]> {
  const rows = await sql<{ transfer_id: string }>(`select transfer_id from settlement_entries where settlement_id = ? and transfer_id <> ? order by transfer_id`, [batch.id, `${batch.id}:sweep`]);
  return rows.map((r) => r.transfer_id);
}

async function markOf(m: TestMerchant): Promise<number | null> {
  const rows = await sql<{ unswept_from: Date }>(`select unswept_from from settlement_sweep_marks where merchant_id = ? and environment = 'sandbox' and currency = 'GHS'`, [m.id]);
  return rows[0] ? new Date(rows[0].unswept_from).getTime() : null;
}

/** A merchant with a settlement account, 20,000 fundings dated over the last days, all swept by one batch (which reads them all) and paid. */
async function sweptHistory(): Promise<TestMerchant> {
  const m = await h.merchant();
  await giveSettlementAccount(h, m.id);
  await seedFundings(one, scopeOf(m), HISTORY, new Date(Date.now() - 3 * 86_400_000), 10_000);
  await sql(`analyze ledger_entries`);
  const { result, reads } = await tableReads(one, ['ledger_entries'], () => sweep(one, m));
  const first = batchOf(result);
  expect(first.entryCount).toBe(HISTORY);
  // The first sweep of a balance without a mark reads its whole history: the measure sees a rescan.
  expect(reads.ledger_entries).toBeGreaterThanOrEqual(HISTORY);
  await applySettlementTransition(h.orm, { settlementId: first.id, to: 'paid', failureClass: null, at: new Date().toISOString() });
  return m;
}

test('20,000 swept postings and 3 new ones: the sweep reads the new ones, not the history, and sweeps exactly what the full scan finds', async () => {
  const m = await sweptHistory();
  const markAfterFirst = await markOf(m);
  await seedFundings(one, scopeOf(m), 3, new Date(), 1);

  const expected = await fullScanUnswept(m);
  expect(expected.ids).toHaveLength(3);
  const { result, reads } = await tableReads(one, ['ledger_entries'], () => sweep(one, m));
  const batch = batchOf(result);
  // Bounded by the new postings: it fails if the sweep reads the history again (20,000 rows).
  expect(reads.ledger_entries).toBeLessThan(FEW_ROWS);
  // Exactly the old sweep's money: the same postings, their count and their sum.
  expect(await sweptIds(batch)).toEqual(expected.ids);
  expect(BigInt(batch.amount)).toBe(expected.total);
  expect(batch.entryCount).toBe(3);
  expect(rescans).toEqual([]);
  expect(await fullScanUnswept(m)).toEqual({ ids: [], total: 0n });
  // The mark moved on, to the sweep's own posting.
  const [{ created_at }] = await sql<{ created_at: Date }>(`select created_at from ledger_entries where transfer_id = ? and account = 'merchant_available'`, [`${batch.id}:sweep`]);
  expect(await markOf(m)).toBe(new Date(created_at).getTime());
  expect(markAfterFirst).not.toBeNull();
  expect(await markOf(m)).toBeGreaterThan(markAfterFirst!);
});

test('a posting behind the mark (written outside the state-change path, dated before it) is still swept: the sweep reads the unswept set in full once', async () => {
  const m = await sweptHistory();
  // Dated a day before the mark, as a seeding script or the test funding may write one.
  await seedFundings(one, scopeOf(m), 2, new Date(Date.now() - 86_400_000), 1);
  await seedFundings(one, scopeOf(m), 1, new Date(), 1);
  const expected = await fullScanUnswept(m);
  expect(expected.ids).toHaveLength(3);
  const { result, reads } = await tableReads(one, ['ledger_entries'], () => sweep(one, m));
  const batch = batchOf(result);
  expect(reads.ledger_entries).toBeGreaterThanOrEqual(HISTORY); // the rescan
  expect(rescans).toEqual([{ merchantId: m.id, postings: 3 }]); // reported (a worker metric and a warning)
  expect(await sweptIds(batch)).toEqual(expected.ids);
  expect(BigInt(batch.amount)).toBe(expected.total);
  // And the next sweep is incremental again.
  await seedFundings(one, scopeOf(m), 2, new Date(), 1);
  const next = await fullScanUnswept(m);
  const again = await tableReads(one, ['ledger_entries'], () => sweep(one, m));
  expect(again.reads.ledger_entries).toBeLessThan(FEW_ROWS);
  expect(rescans).toHaveLength(1);
  expect(await sweptIds(batchOf(again.result))).toEqual(next.ids);
});

test('a capture that waited for the sweep on the balance row commits after the mark moved, and the next sweep takes it (incrementally)', async () => {
  const m = await sweptHistory();
  await seedFundings(one, scopeOf(m), 2, new Date(), 1);
  const late = await accept(h.orm, draftCharge(m.id, 15_000));
  // The test holds the merchant's event counter: the sweep takes the available balance row, then waits there.
  const em = h.orm.em.fork() as EntityManager;
  await em.begin();
  let released = false;
  const release = async () => {
    if (!released) await em.rollback();
    released = true;
  };
  let first: Promise<SettlementRecord | SettlementNothing> | undefined;
  let capture: Promise<unknown> | undefined;
  try {
    const [{ pid }] = await em.execute<{ pid: number }[]>(`select pg_backend_pid() as pid`);
    await em.execute(`select 1 from event_counters where merchant_id = ? and environment = 'sandbox' for update`, [m.id]);
    const waitingOn = async (blocker: number) =>
      (await sql<{ pid: number }>(`select pid from pg_stat_activity where wait_event_type = 'Lock' and ? = any(pg_blocking_pids(pid))`, [blocker])).map((r) => Number(r.pid));
    first = sweep(h.orm, m);
    let sweeper: number[] = [];
    await until('the sweep waits at the counter', async () => (sweeper = await waitingOn(Number(pid))).length === 1);
    // The capture's transaction started before the sweep commits, and waits for its balance row.
    capture = applyChargeTransition(h.orm, { chargeId: late.id, to: 'succeeded', failureClass: null, at: new Date().toISOString() });
    await until('the capture waits behind the sweep', async () => (await waitingOn(sweeper[0])).length === 1);
    await release();
    const batch = batchOf(await first);
    await capture;
    expect(batch.entryCount).toBe(2);
    expect(await sweptIds(batch)).not.toContain(`${late.id}:capture`);
  } finally {
    await release();
    await Promise.allSettled([first, capture]);
  }
  const expected = await fullScanUnswept(m);
  expect(expected.ids).toEqual([`${late.id}:capture`]);
  const { result, reads } = await tableReads(one, ['ledger_entries'], () => sweep(one, m));
  expect(reads.ledger_entries).toBeLessThan(FEW_ROWS);
  const next = batchOf(result);
  expect(await sweptIds(next)).toEqual(expected.ids);
  expect(BigInt(next.amount)).toBe(expected.total);
});

test('the migration\'s backfill: the oldest unswept posting\'s date (or, all swept, the newest posting\'s), from which the next sweep is incremental and exact', async () => {
  const m = await sweptHistory();
  const backfill = async () => {
    await sql(`delete from settlement_sweep_marks where merchant_id = ?`, [m.id]);
    await sql(`${SWEEP_MARKS_BACKFILL} and b.merchant_id = ?`, [m.id]);
  };
  // Every posting swept: the newest posting's date (the first sweep's own).
  await backfill();
  const [{ newest }] = await sql<{ newest: Date }>(`select max(created_at) as newest from ledger_entries where merchant_id = ? and account = 'merchant_available'`, [m.id]);
  expect(await markOf(m)).toBe(new Date(newest).getTime());
  // Unswept postings, one dated before the newest swept one: the oldest of them.
  await seedFundings(one, scopeOf(m), 1, new Date(new Date(newest).getTime() - 60_000), 1);
  await seedFundings(one, scopeOf(m), 2, new Date(), 1);
  await backfill();
  const expected = await fullScanUnswept(m);
  const [{ oldest }] = await sql<{ oldest: Date }>(
    `select min(le.created_at) as oldest from ledger_entries le where le.merchant_id = ? and le.account = 'merchant_available' and le.transfer_id = any(?::text[])`,
    [m.id, `{${expected.ids.join(',')}}`],
  );
  expect(await markOf(m)).toBe(new Date(oldest).getTime());
  const { result, reads } = await tableReads(one, ['ledger_entries'], () => sweep(one, m));
  expect(reads.ledger_entries).toBeLessThan(FEW_ROWS);
  const batch = batchOf(result);
  expect(await sweptIds(batch)).toEqual(expected.ids);
  expect(BigInt(batch.amount)).toBe(expected.total);
});
