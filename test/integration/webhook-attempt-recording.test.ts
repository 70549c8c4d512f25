/**
 * Recording webhook attempts (real PostgreSQL, real Temporal dev server and worker, a real local
 * receiver; single activity executions run in MockActivityEnvironment against the real database):
 *  - a receiver answering binary, UTF-16 or NUL bytes gets one attempt, recorded with a storable
 *    excerpt, and is not sent the webhook again;
 *  - a database error the same input always raises fails the activity without retries;
 *  - two executions of one attempt answer the same outcome, the one recorded first; two at once send
 *    one POST (the second waits out the first's hold), and one that died sends again after its hold;
 *  - a success writes the endpoint row only when it ends a failure streak, and a failure locks the
 *    row FOR NO KEY UPDATE (a concurrent key-share lock, as a foreign key check takes, does not block it);
 *  - the attempt heartbeats while it waits on the database, not only while it sends.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createWebhookActivities } from '../../activities/webhooks';
import { ATTEMPT_IN_PROGRESS } from '../../activities/webhook-let-go';
import type { DeliverWebhookInput, DeliverWebhookOutcome } from '../../activities/types';
import { responseExcerpt } from '../../src/domain/response-excerpt';
import { openOrm } from '../../src/persistence/orm';
import { recordAttempt, type AttemptResult } from '../../src/persistence/webhooks/webhook-attempt-store';
import { letGo } from '../../src/persistence/webhooks/webhook-let-go-store';
import type { Caller } from '../../src/services/context';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import { fanOutDeliveryId } from '../../src/webhooks/delivery-id';
import { policyAgents } from '../../src/webhooks/policy-agents';
import { startHarness, type Harness } from '../support/harness';
import { emitEvent, handMadeDelivery as handMadeDeliveryOf, sandboxCaller, until } from '../support/webhook-fixtures';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

let h: Harness;
let rx: TestReceiver;
beforeAll(async () => {
  h = await startHarness();
  rx = await startTestReceiver();
});
afterAll(async () => {
  await rx?.close();
  await h?.close();
});
beforeEach(() => rx.respond(() => ({ status: 200, body: 'ok' })));

const handMadeDelivery = (caller: Caller, endpointId: string) => handMadeDeliveryOf(h.orm, caller, endpointId);
const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const onPath = (path: string) => (ds: ReceivedDelivery[]) => ds.filter((d) => d.path === path);
// The activity's warnings (e.g. "already recorded by another execution") are expected here.
const quiet = new DefaultLogger('ERROR');
const activities = () =>
  createWebhookActivities({ orm: h.orm, secretBox: h.deps.secretBox, agents: policyAgents(h.deps.webhooks), disableRule: h.deps.webhooks.disableRule });
const runAttempt = (input: DeliverWebhookInput, attempt = 1): Promise<DeliverWebhookOutcome> =>
  new MockActivityEnvironment({ attempt, startToCloseTimeoutMs: 90_000 }, { logger: quiet }).run(activities().deliverWebhook, input);

/**
 * An endpoint the relay never fans out to (it subscribes to transaction.failed only) and a pending
 * delivery to it, created by hand, for tests that run the activity themselves.
 */
async function quietEndpoint(caller: Caller, path: string): Promise<string> {
  const { endpoint } = await createEndpoint(h.deps, caller, { url: `${rx.url}/${path}`, subscribed_events: ['transaction.failed'] });
  return endpoint.id;
}

test('a receiver answering binary, UTF-16 or NUL bytes: one attempt recorded with a storable excerpt, nothing sent again', async () => {
  const { caller, key } = await sandboxCaller(h.orm);
  const answers: Record<string, Buffer> = {
    binary: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe, 0xc3]),
    utf16: Buffer.from('\uFEFF{"received":true,"note":"merci"}', 'utf16le'),
    // NUL bytes inside, a 2-byte character across the 1 KiB boundary, and more than 1 KiB in all.
    nul: Buffer.concat([Buffer.from('ok\u0000done\u0000'), Buffer.alloc(1013, 0x41), Buffer.from('é and more after the cut')]),
  };
  const paths = Object.fromEntries(Object.keys(answers).map((name) => [name, `/hook/${caller.merchantId}/${name}`]));
  rx.respond((d) => {
    const name = Object.keys(paths).find((n) => paths[n] === d.path);
    return name ? { status: 200, body: answers[name], headers: { 'content-type': 'application/octet-stream' } } : { status: 200, body: 'ok' };
  });
  const endpointIds: Record<string, string> = {};
  for (const name of Object.keys(answers)) {
    endpointIds[name] = (await createEndpoint(h.deps, caller, { url: `${rx.url}/${caller.merchantId}/${name}`, subscribed_events: [] })).endpoint.id;
  }
  const eventId = await emitEvent(h.orm, caller);

  for (const [name, raw] of Object.entries(answers)) {
    const deliveryId = fanOutDeliveryId(eventId, endpointIds[name]);
    // Before the fix the attempt could not be recorded, so the delivery stayed pending and was re-sent.
    await until(`${name}: delivery ${deliveryId} recorded`, async () => {
      const rows = await sql(`select status from webhook_deliveries where id = ?`, [deliveryId]);
      return rows.length === 1 && rows[0].status !== 'pending';
    });
    expect(await h.temporal.client.workflow.getHandle(deliveryId).result()).toEqual({ status: 'succeeded', attempts: 1, reason: null });
    const record = (await h.request('sandbox', 'GET', `/v1/webhook-deliveries/${deliveryId}`, { key })).json;
    expect(record).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    expect(record.attempts).toHaveLength(1);
    const stored: string = record.attempts[0].response_body;
    expect(stored).toBe(responseExcerpt(raw, 1024));
    expect(stored).not.toContain('\u0000');
    expect(Buffer.byteLength(stored, 'utf8')).toBeLessThanOrEqual(1024);
    // The workflow has completed: what the receiver got is all it will get.
    expect(onPath(paths[name])(rx.deliveries)).toHaveLength(1);
  }
  const nul: string = (await h.request('sandbox', 'GET', `/v1/webhook-deliveries/${fanOutDeliveryId(eventId, endpointIds.nul)}`, { key })).json.attempts[0].response_body;
  expect(nul.startsWith('ok\uFFFDdone\uFFFD')).toBe(true);
  expect(nul.endsWith('A')).toBe(true); // the 2-byte character that would cross 1 KiB is left out whole
}, 90_000);

test('a database error the same input always raises fails the attempt as non-retryable DETERMINISTIC_DB_ERROR', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const deliveryId = await handMadeDelivery(caller, await quietEndpoint(caller, `${caller.merchantId}/constraint`));
  // Attempt 0 breaks the attempts table's check constraint (SQLSTATE 23514) every time it is recorded.
  const failure = await runAttempt({ deliveryId, attempt: 0, attemptedAtMs: Date.now(), retryDelayMs: 5000 }).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: 'DeterministicDatabaseError', nonRetryable: true });
  expect((failure as Error).message).toMatch(/23514/);
  expect((failure as Error).message).not.toMatch(/Failing row contains/); // row values stay out of the history
});

test('recording one attempt twice with different outcomes: both calls answer the outcome recorded first', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const endpointId = await quietEndpoint(caller, `${caller.merchantId}/twice`);
  const deliveryId = await handMadeDelivery(caller, endpointId);
  const attemptedAt = new Date();
  const base: AttemptResult = {
    deliveryId, endpointId, attempt: 1, attemptedAt, outcome: 'failed', statusCode: 500, durationMs: 12, error: 'HTTP 500', responseBody: 'down',
    nextAttemptAt: new Date(attemptedAt.getTime() + 5000), failureReason: 'HTTP 500',
  };
  const first = await recordAttempt(h.orm, base, h.deps.webhooks.disableRule);
  const second = await recordAttempt(h.orm, { ...base, outcome: 'succeeded', statusCode: 200, error: null, responseBody: 'ok', nextAttemptAt: null, failureReason: null }, h.deps.webhooks.disableRule);
  const winner = { outcome: 'failed', statusCode: 500, error: 'HTTP 500', retryInMs: 5000 };
  expect(first).toMatchObject({ inserted: true, recorded: winner });
  expect(second).toMatchObject({ inserted: false, recorded: winner, autoDisabled: false });
  expect(await sql(`select outcome, status_code from webhook_attempts where delivery_id = ?`, [deliveryId])).toEqual([{ outcome: 'failed', status_code: 500 }]);
  expect((await sql(`select status, attempt_count from webhook_deliveries where id = ?`, [deliveryId]))[0]).toEqual({ status: 'pending', attempt_count: 1 });
});

test('two executions of one attempt at once: one POST; the other sends nothing, comes back when the send\'s hold ends, and answers its record', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const path = `${caller.merchantId}/race`;
  const deliveryId = await handMadeDelivery(caller, await quietEndpoint(caller, path));
  // The first execution's request is held until released.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  rx.respond((d) => (d.path === `/hook/${path}` ? { status: 200, body: 'ok', release: held } : { status: 200, body: 'ok' }));
  const input: DeliverWebhookInput = { deliveryId, attempt: 1, attemptedAtMs: Date.now(), retryDelayMs: 5000 };

  const first = runAttempt(input, 1); // e.g. the execution whose heartbeat timed out while it waited
  await rx.waitFor((ds) => onPath(`/hook/${path}`)(ds).length === 1);
  // Its retry, on another worker, while the first is still sending: nothing sent, back once the hold ends.
  const second = await runAttempt(input, 2).catch((e: unknown) => e);
  expect(second).toBeInstanceOf(ApplicationFailure);
  expect(second).toMatchObject({ type: ATTEMPT_IN_PROGRESS, nonRetryable: false });
  const [{ hold_ms }] = await sql<{ hold_ms: number }>(`select extract(epoch from sending_until - clock_timestamp()) * 1000 as hold_ms from webhook_deliveries where id = ?`, [deliveryId]);
  expect(Number((second as ApplicationFailure).nextRetryDelay)).toBeGreaterThanOrEqual(Number(hold_ms) - 1000);
  release();
  const answered = await first;
  expect(answered).toMatchObject({ outcome: 'succeeded', statusCode: 200 });
  // The retry, when it comes back: the first one's record, nothing sent again.
  expect(await runAttempt(input, 3)).toEqual(answered);
  expect(await sql(`select outcome, status_code from webhook_attempts where delivery_id = ?`, [deliveryId])).toEqual([{ outcome: 'succeeded', status_code: 200 }]);
  expect(onPath(`/hook/${path}`)(rx.deliveries)).toHaveLength(1);
});

test('an execution that died while sending: once its hold ends, the next execution sends the attempt (at least once)', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const path = `${caller.merchantId}/died`;
  const deliveryId = await handMadeDelivery(caller, await quietEndpoint(caller, path));
  // What a worker killed mid-send leaves: the send let go and held, no record.
  expect(await letGo(h.orm, { deliveryId, attempt: 1, token: 'a-worker-that-died', holdMs: 300 })).toMatchObject({ go: true });
  const input: DeliverWebhookInput = { deliveryId, attempt: 1, attemptedAtMs: Date.now(), retryDelayMs: 5000 };
  expect(await runAttempt(input, 2).catch((e: unknown) => e)).toMatchObject({ type: ATTEMPT_IN_PROGRESS });
  expect(onPath(`/hook/${path}`)(rx.deliveries)).toHaveLength(0);
  await new Promise((r) => setTimeout(r, 350));
  expect(await runAttempt(input, 3)).toMatchObject({ outcome: 'succeeded', statusCode: 200 });
  expect(onPath(`/hook/${path}`)(rx.deliveries)).toHaveLength(1);
  // The record was made with the instant the send was let go.
  const [{ sent_at, attempted_at }] = await sql<{ sent_at: Date | null; attempted_at: Date }>(`select sent_at, attempted_at from webhook_attempts where delivery_id = ?`, [deliveryId]);
  expect(sent_at).not.toBeNull();
  expect(new Date(sent_at!).getTime()).toBeGreaterThan(new Date(attempted_at).getTime());
  // A recorded attempt is never let go again, whoever asks.
  expect(await letGo(h.orm, { deliveryId, attempt: 1, token: 'anyone', holdMs: 1000 })).toMatchObject({ go: false, why: 'recorded' });
});

test('a success writes the endpoint row only when it ends a failure streak', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const path = `${caller.merchantId}/streak`;
  const endpointId = await quietEndpoint(caller, path);
  const version = async () => (await sql(`select xmin::text as xmin, updated_at, consecutive_failures, failure_streak_started_at from webhook_endpoints where id = ?`, [endpointId]))[0];
  const before = await version();

  const ok = await runAttempt({ deliveryId: await handMadeDelivery(caller, endpointId), attempt: 1, attemptedAtMs: Date.now(), retryDelayMs: 5000 });
  expect(ok.outcome).toBe('succeeded');
  expect(await version()).toEqual(before); // same xmin: the row was not rewritten

  rx.respond(() => ({ status: 503, body: 'busy' }));
  const streaky = await handMadeDelivery(caller, endpointId);
  expect((await runAttempt({ deliveryId: streaky, attempt: 1, attemptedAtMs: Date.now(), retryDelayMs: 5000 })).outcome).toBe('failed');
  const failing = await version();
  expect(failing.xmin).not.toBe(before.xmin);
  expect(failing.consecutive_failures).toBe(1);

  rx.respond(() => ({ status: 200, body: 'ok' }));
  expect((await runAttempt({ deliveryId: streaky, attempt: 2, attemptedAtMs: Date.now(), retryDelayMs: 5000 })).outcome).toBe('succeeded');
  expect(await version()).toMatchObject({ consecutive_failures: 0, failure_streak_started_at: null });
});

test('a failure is recorded while another transaction holds a key-share lock on the endpoint row', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const endpointId = await quietEndpoint(caller, `${caller.merchantId}/keyshare`);
  const deliveryId = await handMadeDelivery(caller, endpointId);
  const conn = h.orm.em.getConnection();
  // What a concurrent insert referencing the endpoint (a new delivery) holds until it commits.
  const other = await conn.begin();
  try {
    await conn.execute(`select id from webhook_endpoints where id = ? for key share`, [endpointId], 'all', other);
    const attemptedAt = new Date();
    const recorded = await recordAttempt(
      h.orm,
      { deliveryId, endpointId, attempt: 1, attemptedAt, outcome: 'failed', statusCode: 500, durationMs: 5, error: 'HTTP 500', responseBody: null, nextAttemptAt: null, failureReason: 'HTTP 500' },
      h.deps.webhooks.disableRule,
    );
    expect(recorded.inserted).toBe(true);
  } finally {
    await conn.rollback(other);
  }
  expect((await sql(`select consecutive_failures from webhook_endpoints where id = ?`, [endpointId]))[0].consecutive_failures).toBe(1);
});

test('the attempt heartbeats through its database steps, not only while it sends', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const path = `${caller.merchantId}/heartbeat`;
  const endpointId = await quietEndpoint(caller, path);
  const deliveryId = await handMadeDelivery(caller, endpointId);
  rx.respond(() => ({ status: 500, body: 'down' }));
  // The activity gets a pool whose lock wait is long, so it waits on the lock below as long as the test holds it.
  const orm = await openOrm(process.env.TEST_DATABASE_URL!, { poolMax: 2, timeouts: { lockTimeoutMs: 30_000, statementTimeoutMs: 40_000, acquireTimeoutMs: 5_000 } });
  const conn = h.orm.em.getConnection();
  const holder = await conn.begin();
  try {
    // Another transaction holds the endpoint row: recording the failure has to wait for it.
    await conn.execute(`select id from webhook_endpoints where id = ? for update`, [endpointId], 'all', holder);
    const env = new MockActivityEnvironment({ attempt: 1, startToCloseTimeoutMs: 90_000 }, { logger: quiet });
    let beats = 0;
    env.on('heartbeat', () => beats++);
    const acts = createWebhookActivities({ orm, secretBox: h.deps.secretBox, agents: policyAgents(h.deps.webhooks), disableRule: h.deps.webhooks.disableRule });
    const running = env.run(acts.deliverWebhook, { deliveryId, attempt: 1, attemptedAtMs: Date.now(), retryDelayMs: 5000 });
    await rx.waitFor((ds) => onPath(`/hook/${path}`)(ds).length === 1);
    const afterSend = beats;
    // Sent; now blocked on the lock. Before the fix the heartbeats stopped with the send.
    await until('a heartbeat while the attempt waits on the database', async () => beats > afterSend, 15_000);
    expect((await sql(`select count(*)::int as n from webhook_attempts where delivery_id = ?`, [deliveryId]))[0].n).toBe(0);
    await conn.rollback(holder);
    expect(await running).toMatchObject({ outcome: 'failed', statusCode: 500 });
  } finally {
    await conn.rollback(holder).catch(() => undefined);
    await orm.close();
  }
});
