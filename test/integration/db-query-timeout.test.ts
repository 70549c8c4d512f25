/**
 * A PostgreSQL that stops answering on a connection a request already holds (SIGSTOP, a network that
 * drops packets): `statement_timeout` is the server's, so only the client's `query_timeout` ends the
 * wait (src/persistence/orm.ts). Issue 32: `npm run chaos` (seeds 101 and 202) saw `GET /v1/balances`
 * hang 30 s while the service's PostgreSQL was paused. The query now fails after the statement's
 * bound plus a margin, as a database outage (503 at the API), and the pool serves again once the
 * server answers.
 */
import { openOrm, queryTimeoutMs, type Orm } from '../../src/persistence/orm';
import { isDatabaseUnreachable } from '../../src/services/dependency-unavailable';
import { startPausableProxy, type PausableProxy } from '../support/pausable-proxy';

const timeouts = { lockTimeoutMs: 500, statementTimeoutMs: 1_000, acquireTimeoutMs: 1_000 };
let proxy: PausableProxy;
let orm: Orm;

beforeAll(async () => {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  proxy = await startPausableProxy(`${url.hostname}:${url.port}`);
  url.host = proxy.address;
  orm = await openOrm(url.toString(), { poolMax: 1, timeouts });
});
afterAll(async () => {
  proxy?.resume();
  await orm?.close();
  await proxy?.close();
});

test('a query on a held connection to a server that stopped answering fails after statement_timeout + margin, as an outage; the pool recovers', async () => {
  const conn = orm.em.getConnection();
  expect(await conn.execute('select 1 as one')).toEqual([{ one: 1 }]);
  proxy.pause();
  const started = Date.now();
  const error = await conn.execute('select 2 as two').then(
    () => undefined,
    (e: unknown) => e,
  );
  const waited = Date.now() - started;
  expect(error).toBeDefined();
  expect(isDatabaseUnreachable(error)).toBe(true);
  expect(waited).toBeGreaterThanOrEqual(queryTimeoutMs(timeouts) - 100);
  // Without query_timeout this waited for as long as the pause lasted (the test's timeout).
  expect(waited).toBeLessThan(queryTimeoutMs(timeouts) + 3_000);
  proxy.resume();
  // The one pooled connection answers again once the server does.
  let answer: unknown;
  for (let i = 0; i < 20 && answer === undefined; i++) {
    answer = await conn.execute('select 3 as three').catch(() => undefined);
    if (answer === undefined) await new Promise((r) => setTimeout(r, 250));
  }
  expect(answer).toEqual([{ three: 3 }]);
}, 30_000);
