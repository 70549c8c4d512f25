/**
 * Issue 34, retention (src/domain/retention.ts, src/persistence/retention-store.ts,
 * workflows/retention.ts) on the suite's PostgreSQL and Temporal dev server: rows past their windows
 * go in bounded batches, rows inside them or still needed stay (a pending delivery, one a kept replay
 * refers to, the attempts of every kept delivery, a pending notification, a dispute's reminder while
 * the dispute waits for evidence, young rows), and events, ledger postings and balances are never
 * touched. A run through Temporal (`retention run`'s path) does the same with the worker's settings.
 *
 * Ages are set in PostgreSQL (created_at, expire), the clock the job uses. The job spans the whole
 * suite database, as in production; the assertions look at this file's rows only.
 */
import type { RetentionPlan } from '../../src/domain/retention';
import { deleteRetentionBatch } from '../../src/persistence/retention-store';
import { runRetentionPass } from '../../src/runtime/retention-pass';
import { retentionSettings } from '../../src/runtime/retention-settings';
import { runRetentionNow } from '../../src/temporal/retention-schedule';
import type { Caller } from '../../src/services/context';
import { newId, randomBase62 } from '../../src/support/new-id';
import { chargeBody, idempotencyKey, startHarness, type Harness } from '../support/harness';
import { runCli } from '../support/run-cli';
import { emitEvent, sandboxCaller } from '../support/webhook-fixtures';

let h: Harness;
let caller: Caller;
let key: string;
let endpointId: string;

const DAY_MS = 86_400_000;
const sql = <T extends object[] = Record<string, unknown>[]>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T>(query, params);

beforeAll(async () => {
  h = await startHarness();
  ({ caller, key } = await sandboxCaller(h.orm));
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key, body: { url: 'http://127.0.0.1:9/retention', subscribed_events: ['transaction.succeeded'] } });
  expect(created.status).toBe(201);
  endpointId = created.json.id as string;
  // Deleted: no relay of the suite fans this file's events out to it; its deliveries are written by hand.
  await sql(`update webhook_endpoints set deleted_at = now() where id = ?`, [endpointId]);
});
afterAll(() => h?.close());

/** A delivery of a new event, `status`, created `ageDays` ago, with `attempts` attempts; `replayOf` makes it a replay. */
async function delivery(status: 'pending' | 'succeeded' | 'failed' | 'skipped', ageDays: number, attempts: number, replayOf?: { id: string; eventId: string }): Promise<{ id: string; eventId: string }> {
  const eventId = replayOf?.eventId ?? (await emitEvent(h.orm, caller));
  const id = newId('delivery');
  await sql(
    `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, replay_of, status, attempt_count, created_at, updated_at, completed_at, workflow_started_at)
     values (?, ?, ?, ?, 'sandbox', 'transaction.succeeded', ?, ?, ?, date_trunc('milliseconds', now() - make_interval(days => ?)), now(), case when ? <> 'pending' then now() end, now())`,
    [id, endpointId, eventId, caller.merchantId, replayOf?.id ?? null, status, attempts, ageDays, status],
  );
  for (let attempt = 1; attempt <= attempts; attempt++) {
    await sql(
      `insert into webhook_attempts (delivery_id, attempt, attempted_at, outcome, status_code, duration_ms) values (?, ?, now() - make_interval(days => ?), ?, 500, 10)`,
      [id, attempt, ageDays, attempt === attempts && status === 'succeeded' ? 'succeeded' : 'failed'],
    );
  }
  return { id, eventId };
}

/** A notification of this file's merchant, `status`, created `ageDays` ago, with `attempts` attempts. */
async function notification(status: 'pending' | 'sent' | 'failed' | 'skipped', ageDays: number, attempts: number, kind = 'charge_receipt', sourceId = `evt_${randomBase62(24)}`): Promise<string> {
  const id = `ntf_${randomBase62(24)}`;
  const recipient = kind === 'charge_receipt' ? 'customer' : 'merchant';
  await sql(
    `insert into notifications (id, merchant_id, environment, kind, recipient, source_id, resource_id, channel, status, attempt_count, created_at, updated_at, completed_at, workflow_started_at)
     values (?, ?, 'sandbox', ?, ?, ?, 'txn_x', 'email', ?, ?, date_trunc('milliseconds', now() - make_interval(days => ?)), now(), now(), now())`,
    [id, caller.merchantId, kind, recipient, sourceId, status, attempts, ageDays],
  );
  for (let attempt = 1; attempt <= attempts; attempt++) {
    await sql(`insert into notification_attempts (notification_id, attempt, attempted_at, outcome) values (?, ?, now(), ?)`, [id, attempt, status === 'sent' && attempt === attempts ? 'sent' : 'failed']);
  }
  return id;
}

const left = async (table: string, column: string, ids: string[]) =>
  (await sql<{ id: string }[]>(`select distinct ${column} as id from ${table} where ${column} = any(?::text[])`, [`{${ids.join(',')}}`])).map((r) => r.id).sort();

/** This merchant's events, postings and balance rows: what retention must never touch. */
async function untouchable(merchantId: string) {
  const [row] = await sql<{ events: number; postings: number; balances: number; charges: number }[]>(
    `select (select count(*) from events where merchant_id = ?)::int as events, (select count(*) from ledger_entries where merchant_id = ?)::int as postings,
            (select count(*) from account_balances where merchant_id = ?)::int as balances, (select count(*) from charges where merchant_id = ?)::int as charges`,
    [merchantId, merchantId, merchantId, merchantId],
  );
  return row;
}

/** The default windows, `batch` rows per statement, no pause. */
const plan = (batch: number): RetentionPlan => ({ ...retentionSettings({}).plan, batch, pauseMs: 0 });

test('settings: defaults, bounds, and every bad value refused with its name', () => {
  const s = retentionSettings({});
  expect(s).toEqual({
    schedule: '17 * * * *',
    plan: { windowsMs: { webhook_deliveries: 90 * DAY_MS, idempotency_keys: DAY_MS, rate_limits: 3_600_000, notifications: 90 * DAY_MS }, batch: 1000, pauseMs: 100 },
    eventsWalkWindowMs: 90 * DAY_MS,
  });
  expect(retentionSettings({ WEBHOOK_DELIVERY_RETENTION: '30d', NOTIFICATION_RETENTION: '400d', RATE_LIMIT_RETENTION: '5m', RETENTION_BATCH_PAUSE: '0', EVENTS_WALK_WINDOW: '365d', RETENTION_SCHEDULE: '@daily' })).toMatchObject({
    schedule: '@daily',
    plan: { windowsMs: { webhook_deliveries: 30 * DAY_MS, notifications: 400 * DAY_MS, rate_limits: 300_000 }, pauseMs: 0 },
    eventsWalkWindowMs: 365 * DAY_MS,
  });
  expect(() => retentionSettings({ WEBHOOK_DELIVERY_RETENTION: '12h' })).toThrow(/WEBHOOK_DELIVERY_RETENTION must be from 1d/);
  expect(() => retentionSettings({ NOTIFICATION_RETENTION: 'soon' })).toThrow(/NOTIFICATION_RETENTION must be a duration/);
  expect(() => retentionSettings({ RATE_LIMIT_RETENTION: '5s' })).toThrow(/RATE_LIMIT_RETENTION must be from 1m/);
  expect(() => retentionSettings({ EVENTS_WALK_WINDOW: '30d' })).toThrow(/EVENTS_WALK_WINDOW must be from 90d .*90 days/);
  expect(() => retentionSettings({ RETENTION_BATCH: '1000000' })).toThrow(/RETENTION_BATCH must be a whole number of rows from 1 to 100000/);
  expect(() => retentionSettings({ RETENTION_BATCH_PAUSE: '2m' })).toThrow(/RETENTION_BATCH_PAUSE must be from 0 to 1m/);
  expect(() => retentionSettings({ RETENTION_SCHEDULE: 'hourly' })).toThrow(/RETENTION_SCHEDULE must be a cron expression/);
});

test('indexes serve the batches: deliveries and notifications by created_at, replays by replay_of', async () => {
  const rows = await sql<{ indexname: string; indexdef: string }[]>(
    `select indexname, indexdef from pg_indexes where indexname in ('webhook_deliveries_created_at', 'webhook_deliveries_replay_of', 'notifications_created_at') order by indexname`,
  );
  expect(rows.map((r) => r.indexname)).toEqual(['notifications_created_at', 'webhook_deliveries_created_at', 'webhook_deliveries_replay_of']);
  expect(rows.find((r) => r.indexname === 'webhook_deliveries_replay_of')?.indexdef).toMatch(/\(replay_of\) WHERE \(replay_of IS NOT NULL\)/);
});

test('deliveries: ended ones past 90 days go with their attempts, in batches; pending, young and replayed ones stay with every attempt; events stay', async () => {
  const gone = [await delivery('succeeded', 91, 1), await delivery('failed', 120, 3), await delivery('skipped', 200, 0), await delivery('succeeded', 95, 2), await delivery('failed', 100, 1)];
  const oldPending = await delivery('pending', 150, 2); // waiting for a retry: never deleted
  const young = await delivery('succeeded', 89, 1);
  const replayedOriginal = await delivery('failed', 100, 2);
  const youngReplay = await delivery('succeeded', 1, 1, replayedOriginal); // kept, so its original stays
  const oldOriginal = await delivery('failed', 130, 1);
  const oldReplay = await delivery('succeeded', 110, 1, oldOriginal); // both past the window: the replay goes first, then its original
  const kept = [oldPending, young, replayedOriginal, youngReplay].map((d) => d.id);
  const goneIds = [...gone, oldOriginal, oldReplay].map((d) => d.id);
  const before = await untouchable(caller.merchantId);

  // One statement deletes at most its batch.
  const first = await deleteRetentionBatch(h.orm, { kind: 'webhook_deliveries', windowMs: 90 * DAY_MS, batch: 2 });
  expect(first.rows).toBe(2);
  expect(first.deleted.webhook_attempts).toBeGreaterThanOrEqual(0);
  // Then a pass, batch after batch (2 rows each) until one comes back short.
  const pass = await runRetentionPass(h.orm, plan(2), { kinds: ['webhook_deliveries'] });
  expect(pass.batches).toBeGreaterThanOrEqual(3);

  expect(await left('webhook_deliveries', 'id', goneIds)).toEqual([]);
  expect(await left('webhook_attempts', 'delivery_id', goneIds)).toEqual([]);
  expect(await left('webhook_deliveries', 'id', kept)).toEqual([...kept].sort());
  const attempts = await sql<{ delivery_id: string; n: number }[]>(`select delivery_id, count(*)::int as n from webhook_attempts where delivery_id = any(?::text[]) group by delivery_id`, [`{${kept.join(',')}}`]);
  expect(Object.fromEntries(attempts.map((r) => [r.delivery_id, r.n]))).toEqual({ [oldPending.id]: 2, [young.id]: 1, [replayedOriginal.id]: 2, [youngReplay.id]: 1 });
  // The events the deliveries carried, and everything else of the merchant's money, are untouched.
  expect(await untouchable(caller.merchantId)).toEqual(before);
  expect(await left('events', 'id', [...gone, oldOriginal].map((d) => d.eventId))).toHaveLength(gone.length + 1);
});

test('notifications: ended ones past 90 days go with their attempts; pending, young, and a reminder of a dispute still waiting for evidence stay', async () => {
  // A dispute that waits for evidence (needs_response), for its deadline reminder.
  const charge = await h.request('sandbox', 'POST', '/v1/charges', { key, body: chargeBody(), headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(charge.status).toBe(200);
  expect((await h.settled(charge.json.id)).status).toBe('succeeded');
  const dispute = await h.request('sandbox', 'POST', `/v1/sandbox/charges/${charge.json.id}/disputes`, { key, body: {}, headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(dispute.status).toBe(200);
  const gone = [await notification('sent', 91, 1), await notification('failed', 120, 3), await notification('skipped', 100, 0), await notification('failed', 100, 1, 'dispute_deadline', `dp_${randomBase62(24)}`)];
  const kept = [await notification('pending', 150, 2), await notification('sent', 80, 1), await notification('sent', 100, 1, 'dispute_deadline', dispute.json.id)];

  const pass = await runRetentionPass(h.orm, plan(2), { kinds: ['notifications'] });
  expect(pass.batches).toBeGreaterThanOrEqual(2);
  expect(await left('notifications', 'id', gone)).toEqual([]);
  expect(await left('notification_attempts', 'notification_id', gone)).toEqual([]);
  expect(await left('notifications', 'id', kept)).toEqual([...kept].sort());
  expect(await left('notification_attempts', 'notification_id', kept)).toEqual([kept[0], kept[1], kept[2]].sort());
}, 60_000);

test('rate-limit counters: expired more than an hour ago go; live and recently expired ones stay', async () => {
  const tag = randomBase62(8);
  const now = `(extract(epoch from now()) * 1000)::bigint`;
  const rows: Array<[string, string]> = [
    [`retention-${tag}-gone-1`, `${now} - 7200000::bigint`],
    [`retention-${tag}-gone-2`, `${now} - 2592000000::bigint`],
    [`retention-${tag}-recent`, `${now} - 600000::bigint`],
    [`retention-${tag}-live`, `${now} + 1000`],
  ];
  for (const [k, expire] of rows) await sql(`insert into rate_limits (key, points, expire) values (?, 1, ${expire})`, [k]);
  await runRetentionPass(h.orm, plan(1), { kinds: ['rate_limits'] });
  expect(await left('rate_limits', 'key', rows.map((r) => r[0]))).toEqual([`retention-${tag}-live`, `retention-${tag}-recent`]);
});

test('a run through Temporal (as the Schedule and `retention run` start it) deletes with the worker settings and reports the counts', async () => {
  const gone = await delivery('succeeded', 91, 2);
  const kept = await delivery('succeeded', 10, 1);
  const ntf = await notification('sent', 91, 1);
  const result = await runRetentionNow(h.temporal.client, h.taskQueue);
  expect(result.workflowId).toMatch(/^retention-run-/);
  expect(result.plan).toEqual(retentionSettings({}).plan);
  expect(result.deleted.webhook_deliveries).toBeGreaterThanOrEqual(1);
  expect(result.deleted.webhook_attempts).toBeGreaterThanOrEqual(2);
  expect(result.deleted.notifications).toBeGreaterThanOrEqual(1);
  expect(result.batches).toBeGreaterThanOrEqual(4); // at least one per kind
  expect(await left('webhook_deliveries', 'id', [gone.id, kept.id])).toEqual([kept.id]);
  expect(await left('notifications', 'id', [ntf])).toEqual([]);
}, 60_000);

test('`cli retention run` starts a run on the running worker, waits, and prints what it deleted as one JSON object', async () => {
  const gone = await delivery('failed', 120, 1);
  const run = await runCli(h.taskQueue, 'retention', 'run');
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const printed = JSON.parse(run.stdout);
  expect(printed).toMatchObject({ workflowId: expect.stringMatching(/^retention-run-/), plan: retentionSettings({}).plan, continuations: 0 });
  expect(printed.deleted.webhook_deliveries).toBeGreaterThanOrEqual(1);
  expect(await left('webhook_deliveries', 'id', [gone.id])).toEqual([]);
}, 90_000);

test('a replay racing the deletion of its delivery answers 404 not_found, not 500', async () => {
  // An active endpoint that subscribes to nothing this file emits (no relay fans out to it).
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key, body: { url: 'http://127.0.0.1:9/retention-race', subscribed_events: ['payout.reversed'] } });
  expect(created.status).toBe(201);
  const id = newId('delivery');
  await sql(
    `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, attempt_count, created_at, updated_at, completed_at)
     values (?, ?, ?, ?, 'sandbox', 'transaction.succeeded', 'failed', 0, now() - interval '120 days', now(), now())`,
    [id, created.json.id, await emitEvent(h.orm, caller), caller.merchantId],
  );
  // A retention batch holds the delivery (FOR UPDATE): the replay's insert waits on its foreign key.
  const conn = h.orm.em.fork().getConnection();
  const tx = await conn.begin();
  await conn.execute(`select id from webhook_deliveries where id = ? for update`, [id], 'all', tx);
  const replay = h.request('sandbox', 'POST', `/v1/webhook-deliveries/${id}/replay`, { key });
  const waiting = async () => (await sql<{ n: number }[]>(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'insert into webhook_deliveries%'`))[0].n;
  for (let i = 0; i < 100 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await waiting()).toBe(1);
  await conn.execute(`delete from webhook_deliveries where id = ?`, [id], 'all', tx);
  await conn.commit(tx);
  const res = await replay;
  expect(res.status).toBe(404);
  expect(res.json.error).toMatchObject({ code: 'not_found', param: 'id' });
  expect((await sql(`select id from webhook_deliveries where replay_of = ?`, [id])).length).toBe(0);
}, 60_000);
