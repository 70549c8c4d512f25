/**
 * Issue 34: the retention Schedule (src/temporal/retention-schedule.ts) exists once the real worker
 * (workers/main.ts, a child process) has started, with RETENTION_SCHEDULE as its cron; a triggered
 * run deletes what is past its window in batches (RETENTION_BATCH rows per statement) with the
 * worker's settings; a bad RETENTION_SCHEDULE stops the worker at start-up with one line naming it.
 * The run spans the whole suite database, as in production; the assertions look at this file's rows.
 */
import type { RetentionResult } from '../../src/domain/retention';
import type { Caller } from '../../src/services/context';
import { freePort } from '../../src/support/free-port';
import { newId } from '../../src/support/new-id';
import { ensureRetentionSchedule, retentionScheduleId } from '../../src/temporal/retention-schedule';
import { startHarness, type Harness } from '../support/harness';
import { emitEvent, sandboxCaller } from '../support/webhook-fixtures';
import { killAllWorkers, startWorkerChild } from '../support/worker-child';

let h: Harness;
/** The child worker's deployment (its own queues and Schedule), so nothing of the harness's answers it. */
let queue: string;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  queue = `${h.taskQueue}-ret`;
});
afterAll(async () => {
  await killAllWorkers();
  if (h) {
    await h.temporal.client.schedule.getHandle(retentionScheduleId(queue)).delete().catch(() => undefined);
    await h.close();
  }
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sql = <T extends object[] = Record<string, unknown>[]>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T>(query, params);

/** `count` ended deliveries created 91 days ago, two attempts each, on a deleted endpoint of `caller`. */
async function oldDeliveries(caller: Caller, key: string, count: number): Promise<string[]> {
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key, body: { url: 'http://127.0.0.1:9/retention-schedule', subscribed_events: ['transaction.succeeded'] } });
  expect(created.status).toBe(201);
  await sql(`update webhook_endpoints set deleted_at = now() where id = ?`, [created.json.id]);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = newId('delivery');
    await sql(
      `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, attempt_count, created_at, updated_at, completed_at)
       values (?, ?, ?, ?, 'sandbox', 'transaction.succeeded', 'succeeded', 2, now() - interval '91 days', now(), now())`,
      [id, created.json.id, await emitEvent(h.orm, caller), caller.merchantId],
    );
    await sql(`insert into webhook_attempts (delivery_id, attempt, attempted_at, outcome, duration_ms) values (?, 1, now(), 'failed', 5), (?, 2, now(), 'succeeded', 5)`, [id, id]);
    ids.push(id);
  }
  return ids;
}

test('after the worker starts, the retention Schedule exists (cron RETENTION_SCHEDULE, UTC, overlap SKIP, the live queue); a triggered run deletes in batches', async () => {
  const { caller, key } = await sandboxCaller(h.orm);
  const ids = await oldDeliveries(caller, key, 5);
  const metricsPort = await freePort();
  const worker = await startWorkerChild({ taskQueue: queue, env: { RETENTION_SCHEDULE: '5 3 * * *', RETENTION_BATCH: '2', RETENTION_BATCH_PAUSE: '0', WORKER_METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' } });
  try {
    const schedule = h.temporal.client.schedule.getHandle(retentionScheduleId(queue));
    const described = await schedule.describe();
    expect(described.scheduleId).toBe(`retention-${queue}`);
    expect((described.spec.calendars ?? []).map((c) => ({ hour: c.hour, minute: c.minute }))).toEqual([{ hour: [{ start: 3, end: 3, step: 1 }], minute: [{ start: 5, end: 5, step: 1 }] }]);
    expect(described.spec.timezone).toBe('UTC');
    expect(described.policies).toMatchObject({ overlap: 'SKIP' });
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'retentionWorkflow', taskQueue: `${queue}-live`, args: [{}] });
    expect(described.state.paused).toBe(false);

    const before = described.info.recentActions.length;
    await schedule.trigger();
    let workflowId: string | undefined;
    for (let i = 0; i < 150 && !workflowId; i++) {
      const actions = (await schedule.describe()).info.recentActions;
      if (actions.length > before) workflowId = actions.at(-1)!.action.workflow.workflowId;
      else await sleep(100);
    }
    expect(workflowId).toMatch(new RegExp(`^retention-${queue}-`));
    const result = (await h.temporal.client.workflow.getHandle(workflowId!).result()) as RetentionResult;
    expect(result.plan.batch).toBe(2);
    expect(result.deleted.webhook_deliveries).toBeGreaterThanOrEqual(5);
    expect(result.deleted.webhook_attempts).toBeGreaterThanOrEqual(10);
    // Five deliveries at two a statement: at least three batches for them, one at least for each other kind.
    expect(result.batches).toBeGreaterThanOrEqual(3 + 3);
    const left = await sql<{ n: number }[]>(`select count(*)::int as n from webhook_deliveries where id = any(?::text[])`, [`{${ids.join(',')}}`]);
    expect(left[0].n).toBe(0);
    // Counted on the worker's /metrics: payments_retention_rows_deleted{table} (an SDK counter, no _total).
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const counted = (table: string) => Number(new RegExp(`^payments_retention_rows_deleted\\{[^}]*table="${table}"[^}]*\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
    expect(counted('webhook_deliveries')).toBeGreaterThanOrEqual(5);
    expect(counted('webhook_attempts')).toBeGreaterThanOrEqual(10);
  } finally {
    await worker.stop();
  }
}, 120_000);

test('ensureRetentionSchedule is idempotent and keeps a pause; a cron Temporal refuses names RETENTION_SCHEDULE', async () => {
  const q = `${h.taskQueue}-ret2`;
  const handle = h.temporal.client.schedule.getHandle(retentionScheduleId(q));
  try {
    expect(await ensureRetentionSchedule(h.temporal.client, { taskQueue: q, cron: '17 * * * *' })).toEqual({ scheduleId: `retention-${q}`, created: true });
    await handle.pause('paused by an operator');
    expect(await ensureRetentionSchedule(h.temporal.client, { taskQueue: q, cron: '20 * * * *' })).toEqual({ scheduleId: `retention-${q}`, created: false });
    const described = await handle.describe();
    expect(described.state).toMatchObject({ paused: true, note: 'paused by an operator' });
    expect((described.spec.calendars ?? [])[0].minute).toEqual([{ start: 20, end: 20, step: 1 }]);
    await expect(ensureRetentionSchedule(h.temporal.client, { taskQueue: q, cron: '99 * * * *' })).rejects.toThrow(/^RETENTION_SCHEDULE "99 \* \* \* \*" was refused by Temporal: /);
  } finally {
    await handle.delete().catch(() => undefined);
  }
});

test('the worker with RETENTION_SCHEDULE=hourly stops at start-up with one line naming the setting', async () => {
  const error = await startWorkerChild({ taskQueue: `${h.taskQueue}-bad`, env: { RETENTION_SCHEDULE: 'hourly' } }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toMatch(/^worker exited \(code 1, signal null\) before it was ready/);
  expect(error?.message).toMatch(/^RETENTION_SCHEDULE must be a cron expression in UTC such as "17 \* \* \* \*" \(hourly at minute 17\): it has 1 field, not 5/m);
  expect(error?.message).not.toMatch(/\n\s+at /);
}, 60_000);
