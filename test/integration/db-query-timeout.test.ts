/**
 * A PostgreSQL that stops answering on a connection a request already holds (SIGSTOP, a network that
 * drops packets): `statement_timeout` is the server's, so only the client's bound ends the wait
 * (src/persistence/orm.ts `queryTimeoutMs`, src/persistence/bounded-client.ts). Issue 32: `npm run
 * chaos` (seeds 101 and 202) saw `GET /v1/balances` hang 30 s while the service's PostgreSQL was
 * paused. The query now fails after the bound as a database outage (503 at the API), its connection is
 * closed and never handed out again, so a transaction cut in the middle can never be committed by the
 * next borrower.
 */
import { randomUUID } from 'node:crypto';
import { openOrm, type DbTimeouts, type Orm } from '../../src/persistence/orm';
import { isDatabaseUnreachable } from '../../src/services/dependency-unavailable';
import { startPausableProxy, type PausableProxy } from '../support/pausable-proxy';

const timeouts: DbTimeouts = { lockTimeoutMs: 500, statementTimeoutMs: 1_000, acquireTimeoutMs: 1_000, queryTimeoutMs: 2_000 };
const table = `query_timeout_probe_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
let proxy: PausableProxy;
let orm: Orm;
let direct: Orm;

beforeAll(async () => {
  direct = await openOrm(process.env.TEST_DATABASE_URL!, 1);
  await direct.em.getConnection().execute(`create table ${table} (id text primary key)`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  proxy = await startPausableProxy(`${url.hostname}:${url.port}`);
  url.host = proxy.address;
  // One connection: whatever the next request gets is the connection the cut query had, unless it was dropped.
  orm = await openOrm(url.toString(), { poolMax: 1, timeouts });
});
afterAll(async () => {
  proxy?.resume();
  await orm?.close();
  await proxy?.close();
  await direct?.em.getConnection().execute(`drop table if exists ${table}`);
  await direct?.close();
});

async function failure(work: Promise<unknown>): Promise<{ error: unknown; waited: number }> {
  const started = Date.now();
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, waited: Date.now() - started };
}

async function answerOnceResumed<T>(read: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await read();
    } catch (error) {
      if (i >= 20) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

test('a query on a held connection to a server that stopped answering fails after the client bound, as an outage; the pool serves again', async () => {
  const conn = orm.em.getConnection();
  expect(await conn.execute('select 1 as one')).toEqual([{ one: 1 }]);
  proxy.pause();
  const { error, waited } = await failure(conn.execute('select 2 as two'));
  expect(error).toBeDefined();
  expect(isDatabaseUnreachable(error)).toBe(true);
  expect(waited).toBeGreaterThanOrEqual(timeouts.queryTimeoutMs! - 100);
  // Without the bound this waited for as long as the pause lasted (the test's timeout).
  expect(waited).toBeLessThan(timeouts.queryTimeoutMs! + 3_000);
  proxy.resume();
  expect(await answerOnceResumed(() => conn.execute('select 3 as three'))).toEqual([{ three: 3 }]);
}, 30_000);

test('a transaction cut by the bound is never committed: the next borrower gets a new connection, and the first write is gone', async () => {
  const cut = failure(
    orm.em.fork().transactional(async (em) => {
      await em.execute(`insert into ${table} (id) values ('first')`);
      proxy.pause();
      await em.execute(`insert into ${table} (id) values ('second')`);
    }),
  );
  const { error, waited } = await cut;
  expect(isDatabaseUnreachable(error)).toBe(true);
  expect(waited).toBeLessThan(timeouts.queryTimeoutMs! + 3_000);
  proxy.resume();
  // The next borrower (the pool holds one connection) commits a write of its own.
  await answerOnceResumed(() =>
    orm.em.fork().transactional(async (em) => {
      await em.execute(`insert into ${table} (id) values ('next')`);
    }),
  );
  // Read past the proxy: only the next borrower's write is there.
  const rows = await direct.em.getConnection().execute<{ id: string }[]>(`select id from ${table} order by id`);
  expect(rows.map((r) => r.id)).toEqual(['next']);
  // And the session of the cut transaction is gone from the server, not idle in transaction.
  const open = await direct.em
    .getConnection()
    .execute<{ n: number }[]>(`select count(*)::int as n from pg_stat_activity where state like 'idle in transaction%' and query like '%${table}%'`);
  expect(open[0].n).toBe(0);
}, 30_000);

test('a transaction whose server session is killed gives its connection back: the pool (one connection) serves the next request', async () => {
  const killed = failure(
    orm.em.fork().transactional(async (em) => {
      await em.execute(`insert into ${table} (id) values ('killed')`);
      const [{ pid }] = await em.execute<{ pid: number }[]>('select pg_backend_pid() as pid');
      await direct.em.getConnection().execute('select pg_terminate_backend(?)', [pid]);
      await em.execute(`insert into ${table} (id) values ('after-kill')`);
    }),
  );
  const { error } = await killed;
  expect(isDatabaseUnreachable(error)).toBe(true);
  // Before bounded-client.ts, the failed ROLLBACK kept the one connection checked out: this timed out.
  const [{ answer }] = await orm.em.getConnection().execute<{ answer: number }[]>('select 42 as answer');
  expect(answer).toBe(42);
  const rows = await direct.em.getConnection().execute<{ id: string }[]>(`select id from ${table} where id in ('killed', 'after-kill')`);
  expect(rows).toEqual([]);
}, 30_000);
