/**
 * A webhook attempt on a slow database (issue 32, "A slow database makes duplicate sends"; real
 * PostgreSQL, a real local receiver; single activity executions in MockActivityEnvironment against
 * the real database, as in webhook-attempt-recording.test.ts):
 *  - an execution cancelled while it waits on the database posts nothing;
 *  - an execution whose time ran out while it waited posts nothing (it could not record in time) and
 *    fails retryable, so the retry sends it;
 *  - a sandbox flood stuck on the database does not delay a live attempt (one lane per environment).
 * The database is slowed for real: a transaction of the test holds a lock the attempt's statements need.
 */
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { ATTEMPT_DEFERRED, createWebhookActivities } from '../../activities/webhooks';
import type { DeliverWebhookInput } from '../../activities/types';
import { openOrm, type Orm } from '../../src/persistence/orm';
import type { Caller } from '../../src/services/context';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import { policyAgents } from '../../src/webhooks/policy-agents';
import { startHarness, type Harness } from '../support/harness';
import { handMadeDelivery, sandboxCaller, until } from '../support/webhook-fixtures';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

let h: Harness;
let rx: TestReceiver;
/** The activities' own pool, whose lock waits outlast the test's holds (the harness's gives up after 5 s). */
let slowOrm: Orm;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  rx = await startTestReceiver();
  slowOrm = await openOrm(process.env.TEST_DATABASE_URL!, { poolMax: 12, timeouts: { lockTimeoutMs: 60_000, statementTimeoutMs: 60_000, acquireTimeoutMs: 5_000 } });
});
afterAll(async () => {
  await slowOrm?.close();
  await rx?.close();
  await h?.close();
});
beforeEach(() => rx.respond(() => ({ status: 200, body: 'ok' })));

const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const onPath = (path: string) => (ds: ReceivedDelivery[]) => ds.filter((d) => d.path === `/hook/${path}`);
const quiet = new DefaultLogger('ERROR');
function activities() {
  const agents = policyAgents(h.deps.webhooks);
  // Live's agent refuses the local receiver (SSRF rules); these tests are about the database, so live posts as sandbox does.
  return createWebhookActivities({ orm: slowOrm, secretBox: h.deps.secretBox, agents: { sandbox: agents.sandbox, live: agents.sandbox }, disableRule: h.deps.webhooks.disableRule });
}
/** An activity execution as the worker runs it: a 90 s start-to-close timeout from now. */
const environment = (startToCloseTimeoutMs = 90_000) => new MockActivityEnvironment({ attempt: 1, startToCloseTimeoutMs, currentAttemptScheduledTimestampMs: Date.now() }, { logger: quiet });

/** An endpoint the relay never fans out to, in the caller's environment. */
async function endpointAt(caller: Caller, path: string, timeoutSeconds = 5): Promise<string> {
  const { endpoint } = await createEndpoint(h.deps, { ...caller, environment: 'sandbox' }, { url: `${rx.url}/${path}`, subscribed_events: ['transaction.failed'], timeout_seconds: timeoutSeconds });
  if (caller.environment === 'live') await sql(`update webhook_endpoints set environment = 'live' where id = ?`, [endpoint.id]);
  return endpoint.id;
}
async function pendingDelivery(caller: Caller, endpointId: string): Promise<DeliverWebhookInput> {
  const id = await handMadeDelivery(h.orm, caller, endpointId);
  return { deliveryId: id, attempt: 1, attemptedAtMs: Date.now(), retryDelayMs: 5000, merchantId: caller.merchantId, environment: caller.environment };
}

/** Runs `fn` while a transaction of the test holds `lock` (a LOCK TABLE or a SELECT … FOR UPDATE). */
async function holding<T>(lock: string, params: unknown[], fn: (release: () => Promise<void>) => Promise<T>): Promise<T> {
  const conn = h.orm.em.getConnection();
  const tx = await conn.begin();
  let open = true;
  const release = async () => {
    if (open) {
      open = false;
      await conn.rollback(tx);
    }
  };
  try {
    await conn.execute(lock, params, 'all', tx);
    return await fn(release);
  } finally {
    await release();
  }
}
/** Sessions of the activities' pool waiting for a lock now. */
const lockWaiters = async () => (await sql(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`))[0].n as number;

test('an execution cancelled while it waits on the database posts nothing', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const path = `${caller.merchantId}/cancelled`;
  const input = await pendingDelivery(caller, await endpointAt(caller, path));
  const env = environment();
  const outcome = await holding(`lock table webhook_attempts in access exclusive mode`, [], async (release) => {
    const running = env.run(activities().deliverWebhook, input).then((v) => ({ value: v }), (error: unknown) => ({ error }));
    await until('the attempt waiting on the database', async () => (await lockWaiters()) > 0, 10_000);
    env.cancel(); // what Temporal does to an execution it has given up on (heartbeat or start-to-close timeout)
    await release();
    return running;
  });
  expect('error' in outcome && outcome.error).toBeInstanceOf(CancelledFailure);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  // Before the fix it went on and posted once the database answered.
  expect(onPath(path)(rx.deliveries)).toHaveLength(0);
  expect((await sql(`select status, attempt_count from webhook_deliveries where id = ?`, [input.deliveryId]))[0]).toEqual({ status: 'pending', attempt_count: 0 });
}, 60_000);

test('an execution whose time ran out while it waited on the database posts nothing and fails retryable; the retry sends once', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const path = `${caller.merchantId}/late`;
  const input = await pendingDelivery(caller, await endpointAt(caller, path, 5));
  // 5 s endpoint timeout + 10 s to record: a 19 s execution has time for it when it starts, not after a 4 s wait.
  const env = environment(19_000);
  const failure = await holding(`lock table webhook_attempts in access exclusive mode`, [], async (release) => {
    const running = env.run(activities().deliverWebhook, input).catch((error: unknown) => error);
    await until('the attempt waiting on the database', async () => (await lockWaiters()) > 0, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    await release();
    return running;
  });
  // Before the fix it posted with too little time left to record the answer.
  expect(failure).toMatchObject({ type: ATTEMPT_DEFERRED, nonRetryable: false });
  expect(onPath(path)(rx.deliveries)).toHaveLength(0);
  // Temporal's retry: a fresh execution, time enough; it sends and records, once.
  expect(await environment().run(activities().deliverWebhook, input)).toMatchObject({ outcome: 'succeeded', statusCode: 200 });
  expect(onPath(path)(rx.deliveries)).toHaveLength(1);
  expect((await sql(`select status, attempt_count from webhook_deliveries where id = ?`, [input.deliveryId]))[0]).toEqual({ status: 'succeeded', attempt_count: 1 });
}, 60_000);

test('a sandbox flood stuck on the database does not delay a live attempt', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const sandboxPath = `${caller.merchantId}/flood`;
  const sandboxEndpoint = await endpointAt(caller, sandboxPath);
  const live: Caller = { ...caller, environment: 'live' };
  const livePath = `${caller.merchantId}/live`;
  const liveInput = await pendingDelivery(live, await endpointAt(live, livePath));
  const flood = await Promise.all(Array.from({ length: 6 }, () => pendingDelivery(caller, sandboxEndpoint)));
  rx.respond((d) => (d.path === `/hook/${sandboxPath}` ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
  // Recording a failure locks the endpoint row: while the test holds it, every sandbox record waits on
  // the database, holding its connection of the webhook queue.
  await holding(`select id from webhook_endpoints where id = ? for update`, [sandboxEndpoint], async (release) => {
    const floods = flood.map((input) => environment().run(activities().deliverWebhook, input).catch((error: unknown) => error));
    await until('the sandbox sends done and their records stuck', async () => onPath(sandboxPath)(rx.deliveries).length >= 2 && (await lockWaiters()) >= 2, 15_000);
    const began = Date.now();
    // Before the fix the live attempt waited behind the sandbox steps for as long as the lock was held.
    const outcome = await Promise.race([
      environment().run(activities().deliverWebhook, liveInput),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 8 s'), 8_000)),
    ]);
    expect(outcome).toMatchObject({ outcome: 'succeeded', statusCode: 200 });
    expect(Date.now() - began).toBeLessThan(5_000);
    await release();
    await Promise.all(floods);
  });
  expect(onPath(livePath)(rx.deliveries)).toHaveLength(1);
}, 90_000);
