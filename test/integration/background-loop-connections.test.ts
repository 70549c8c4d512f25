/**
 * Issue 32, "Reserved connections": every background loop of the worker process has a connection of
 * its own in the worker's pool, even when every slot and every webhook connection holds one (real
 * PostgreSQL, real Temporal dev server). The test fills the pool as a fully busy worker would, makes the
 * database slow for everything the loops touch (a lock it holds for a few seconds), and runs one pass
 * of every loop at once: each gets its connection and waits on the lock (none is left without one),
 * and each pass then ends. Before the fix 4 connections were kept for 9 loop connections (10 now, with
 * the closed-run sweep of issue 32, and issue 46's partner breaker loop in the spare).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { notificationRelayOnce } from '../../src/notifications/notification-relay';
import { DEFAULT_BREAKER_SETTINGS } from '../../src/domain/partner-health';
import { openOrm, type Orm } from '../../src/persistence/orm';
import { evaluatePartnerBreakers } from '../../src/persistence/partner/partner-breaker-evaluation';
import { startUnstartedCharges } from '../../src/runtime/charge-start-relay';
import { reconcileOnce } from '../../src/runtime/charge-reconciler';
import { startUnstartedDisputes } from '../../src/runtime/dispute-start-relay';
import { startUnstartedPayouts } from '../../src/runtime/payout-start-relay';
import { startUnstartedRefunds } from '../../src/runtime/refund-start-relay';
import { BACKGROUND_LOOP_CONNECTIONS, RESERVED_CONNECTIONS, workerCapacity } from '../../src/runtime/worker-capacity';
import { createLogger } from '../../src/support/logger';
import { relayOnce } from '../../src/webhooks/outbox-relay';
import { DEFAULT_WORKER_POOL_MAX } from '../../src/runtime/worker-settings';
import { startHarness, type Harness } from '../support/harness';
import { until } from '../support/webhook-fixtures';

let h: Harness;
let pool: Orm;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  // The worker's default pool; a connection not free within 1.5 s is a loop starved.
  pool = await openOrm(process.env.TEST_DATABASE_URL!, { poolMax: DEFAULT_WORKER_POOL_MAX, timeouts: { lockTimeoutMs: 30_000, statementTimeoutMs: 30_000, acquireTimeoutMs: 1_500 } });
});
afterAll(async () => {
  await pool?.close();
  await h?.close();
});

const log = createLogger('silent');
const lockWaiters = async () =>
  (await h.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`))[0].n;

test('every loop workers/main.ts starts has its line in BACKGROUND_LOOP_CONNECTIONS', () => {
  const main = readFileSync(path.join(__dirname, '../../workers/main.ts'), 'utf8');
  const started = [...main.matchAll(/\bstart(\w+(?:Relay|Retention|Reconciler|Monitor))\(/g)].map((m) => m[1]);
  expect(new Set(started).size).toBe(started.length);
  // Every line (issue 46's partner breaker loop took the spare: the idempotency retention loop's until issue 34 made retention a Schedule).
  expect(started).toHaveLength(Object.keys(BACKGROUND_LOOP_CONNECTIONS).length);
  expect(RESERVED_CONNECTIONS).toBe(10);
});

test('with every slot and webhook connection of the default pool taken, one pass of every background loop at once: none is starved of a connection', async () => {
  const capacity = workerCapacity(DEFAULT_WORKER_POOL_MAX);
  const busy = capacity.localActivitySlots + capacity.activitySlots + capacity.webhookDbConnections;
  const conn = pool.em.getConnection();
  // A fully busy worker: each slot and each webhook connection holds its connection (an open transaction).
  const held = await Promise.all(Array.from({ length: busy }, () => conn.begin()));
  for (const tx of held) await conn.execute('select 1', [], 'all', tx);
  const locker = h.orm.em.getConnection();
  const lock = await locker.begin();
  const tables = ['events', 'notification_outbox', 'webhook_deliveries', 'charges', 'payouts', 'refunds', 'disputes', 'idempotency_keys', 'partner_breakers'];
  await locker.execute(`lock table ${tables.join(', ')} in access exclusive mode`, [], 'all', lock);
  const deps = { orm: pool, client: h.temporal.client, taskQueue: h.taskQueue, log };
  const passes: Record<string, Promise<unknown>> = {
    'outbox relay, pass 1': relayOnce({ ...deps, retryScheduleMs: h.deps.webhooks.retryScheduleMs, listenUrl: null }),
    'outbox relay, pass 2': relayOnce({ ...deps, retryScheduleMs: h.deps.webhooks.retryScheduleMs, listenUrl: null }),
    // Its closed-run sweep's statement, as when visibility names closed runs.
    'outbox relay, closed-run sweep': pool.em.getConnection().execute(`select id from webhook_deliveries where id = any(?::text[]) and status = 'pending'`, ['{dlv_none}']),
    'notification relay': notificationRelayOnce({ ...deps, secretBox: h.deps.secretBox, retryScheduleMs: [1000], disputeDeadlineWithinMs: 86_400_000 }),
    'charge-start relay': startUnstartedCharges(deps),
    'payout-start relay': startUnstartedPayouts(deps),
    'refund-start relay': startUnstartedRefunds(deps),
    'dispute-start relay': startUnstartedDisputes(deps),
    'charge reconciler': reconcileOnce(deps),
    // Issue 46: its evaluator pass (the calls' write and the health read are the same connection, one after another).
    'partner breaker loop': evaluatePartnerBreakers(pool, DEFAULT_BREAKER_SETTINGS),
  };
  const settled = Object.fromEntries(Object.entries(passes).map(([name, p]) => [name, p.then(() => 'done', (error: unknown) => `failed: ${(error as Error).message}`)]));
  try {
    // Every loop has its connection and waits on the database, at once.
    await until(`all ${Object.keys(passes).length} passes holding a connection (waiting on the lock)`, async () => (await lockWaiters()) >= Object.keys(passes).length, 5_000).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // past the 1.5 s a starved loop would wait for a connection
  } finally {
    await locker.rollback(lock);
  }
  const outcomes = Object.fromEntries(await Promise.all(Object.entries(settled).map(async ([name, p]) => [name, await p])));
  // Before the fix (4 reserved): five of them "failed: timeout exceeded when trying to connect".
  expect(outcomes).toEqual(Object.fromEntries(Object.keys(passes).map((name) => [name, 'done'])));
  for (const tx of held) await conn.rollback(tx);
}, 60_000);
