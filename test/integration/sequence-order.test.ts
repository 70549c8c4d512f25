import type { EntityManager } from '@mikro-orm/postgresql';
import { setTimeout as delay } from 'node:timers/promises';
import { sqlStateOf } from '../../src/persistence/db-errors';
import { createMerchant } from '../../src/persistence/merchants/merchant-store';
import { openOrm, type Orm } from '../../src/persistence/orm';
import { expectBalancesMatchPostings } from '../support/ledger-rows';
import { accept, draftCharge, succeed } from '../support/stored-charges';

/**
 * The per-merchant event counter is the hottest row: a state change takes it last, after its
 * projection and balance rows are written, in the statement that also inserts its ledger entries
 * (dated once the counter is held: src/persistence/events/event-log.ts). Shown with the counter row held by
 * the test: the state change waits in that statement, already holding write locks on everything it
 * writes before it, and no lock on events yet. Lock waits here are long (60 s) so that the test never
 * races the store's lock timeout.
 */

let orm: Orm;

beforeAll(async () => {
  orm = await openOrm(process.env.TEST_DATABASE_URL!, {
    poolMax: 6,
    timeouts: { lockTimeoutMs: 60_000, statementTimeoutMs: 60_000, acquireTimeoutMs: 5_000 },
  });
});
afterAll(async () => {
  await orm?.close();
});

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return orm.em.getConnection().execute<T[]>(query, params);
}

async function until(what: string, check: () => Promise<boolean>, attempts = 300, everyMs = 100): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await delay(everyMs);
  }
  throw new Error(`timed out waiting until ${what}`);
}

interface Waiter {
  pid: number;
  query: string;
  /** Tables the waiting transaction holds a write lock on (RowExclusiveLock: it wrote to them). */
  written: string[];
}

/** Backends waiting on a lock that `blocker` (a backend pid) holds, with the tables they wrote to. */
async function waitersOn(blocker: number): Promise<Waiter[]> {
  const rows = await sql<{ pid: number; query: string; written: string[] | null }>(
    `select a.pid, a.query,
       (select array_agg(distinct c.relname::text order by c.relname::text) from pg_locks l join pg_class c on c.oid = l.relation
        where l.pid = a.pid and l.granted and l.mode = 'RowExclusiveLock' and c.relkind = 'r') as written
     from pg_stat_activity a
     where a.wait_event_type = 'Lock' and ? = any(pg_blocking_pids(a.pid))`,
    [blocker],
  );
  return rows.map((r) => ({ pid: Number(r.pid), query: r.query.trim().replace(/\s+/g, ' '), written: r.written ?? [] }));
}

/** Holds the merchant's sandbox event counter row (creating it uncommitted if it does not exist yet). */
async function holdCounter(merchantId: string): Promise<{ pid: number; release(): Promise<void> }> {
  const em = orm.em.fork() as EntityManager;
  await em.begin();
  await em.execute(
    `insert into event_counters (merchant_id, environment, last_sequence) values (?, 'sandbox', 0)
     on conflict (merchant_id, environment) do update set last_sequence = event_counters.last_sequence`,
    [merchantId],
  );
  const [{ pid }] = await em.execute<{ pid: number }[]>(`select pg_backend_pid() as pid`);
  let released = false;
  return {
    pid: Number(pid),
    async release() {
      if (released) return;
      released = true;
      await em.rollback();
    },
  };
}

/** The SQLSTATE of trying to lock the merchant's balance rows without waiting (55P03: someone holds them). */
async function tryLockBalances(merchantId: string): Promise<string | undefined> {
  const em = orm.em.fork() as EntityManager;
  await em.begin();
  try {
    await em.execute(`select account from account_balances where merchant_id = ? for update nowait`, [merchantId]);
    return undefined;
  } catch (error) {
    return sqlStateOf(error);
  } finally {
    await em.rollback();
  }
}

const STATE_CHANGE_TABLES = ['account_balances', 'charges', 'event_counters', 'events', 'ledger_entries'];
/**
 * Issue 48: one statement, the balance rows (taken first), the counter upsert, the postings and the
 * event; it waits on the counter with its balance rows held.
 */
const COUNTER_STATEMENT = /^with moved as \( insert into account_balances .* counter as \( insert into event_counters /; // pg_stat_activity cuts the text at 1 kB: the tables it writes are in `written`

test('a succeed transition writes projection and balance rows first, and waits only on the counter (with its postings)', async () => {
  const merchant = await createMerchant(orm, 'Counter last');
  const charge = await accept(orm, draftCharge(merchant.id, 15_000));

  const counter = await holdCounter(merchant.id);
  let transition: Promise<unknown> | undefined;
  try {
    transition = succeed(orm, charge.id);
    let waiters: Waiter[] = [];
    await until('the transition waits on the counter', async () => (waiters = await waitersOn(counter.pid)).length === 1);
    const [waiter] = waiters;
    expect(waiter.query).toMatch(COUNTER_STATEMENT);
    // charges (projection update) is written; account_balances, event_counters, ledger_entries and
    // events are the one statement it waits in (their table write locks taken as it began): its
    // balance rows are taken (below), the postings and the event go in once the counter row is held.
    expect(waiter.written).toEqual(STATE_CHANGE_TABLES);
    // Its balance rows are taken already (by the waiting transaction, not the test's).
    expect(await tryLockBalances(merchant.id)).toBe('55P03');
  } finally {
    await counter.release();
  }
  await transition;

  const events = await sql<{ sequence: number; type: string }>(
    `select sequence::int as sequence, type from events where merchant_id = ? order by sequence`,
    [merchant.id],
  );
  expect(events).toEqual([
    { sequence: 1, type: 'transaction.created' },
    { sequence: 2, type: 'transaction.succeeded' },
  ]);
  await expectBalancesMatchPostings(orm, merchant.id);
});

test('an acceptance writes its charge and balance rows first, and waits only on the counter, with its hold postings (also when the counter row is new)', async () => {
  const merchant = await createMerchant(orm, 'Counter last, first event');
  // The counter row does not exist yet: the test's uncommitted insert holds its key.
  const counter = await holdCounter(merchant.id);
  let acceptance: Promise<unknown> | undefined;
  try {
    acceptance = accept(orm, draftCharge(merchant.id, 15_000));
    let waiters: Waiter[] = [];
    await until('the acceptance waits on the counter', async () => (waiters = await waitersOn(counter.pid)).length === 1);
    expect(waiters[0].query).toMatch(COUNTER_STATEMENT);
    expect(waiters[0].written).toEqual(STATE_CHANGE_TABLES);
  } finally {
    await counter.release();
  }
  await acceptance;
  expect(await sql(`select last_sequence::int as n from event_counters where merchant_id = ?`, [merchant.id])).toEqual([{ n: 1 }]);
  await expectBalancesMatchPostings(orm, merchant.id);
});
