/**
 * Deadlines on requests that wait on Temporal (issue 7, defect 2). With no worker polling, POST
 * /v1/charges used to wait forever; now it answers 503 `service_unavailable` with `Retry-After`
 * within the deadline, keeps the Idempotency-Key usable, and a retry once a worker is back converges
 * on the same charge (same id, one workflow run). The operator reversal has a deadline too.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { reverseCharge } from '../../src/services/reverse-charge';
import { expectError } from '../support/api-errors';
import { countRows } from '../support/db-counts';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';

/** Short, so the no-worker phase is quick; the retries after the worker is back use a generous one. */
const SHORT_DEADLINE_MS = 1_500;
const GENEROUS_DEADLINE_MS = 60_000;
const ROOT = path.resolve(__dirname, '../..');

let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  m = await h.merchant();
});
afterAll(() => h?.close());

async function claimedChargeId(key: string): Promise<string> {
  const rows = await h.orm.em.getConnection().execute<{ resource_id: string }[]>('select resource_id from idempotency_keys where merchant_id = ? and key = ?', [m.id, key]);
  expect(rows).toHaveLength(1);
  return rows[0].resource_id;
}

const chargeRows = async (id: string) => Number((await h.orm.em.getConnection().execute<{ n: string }[]>('select count(*) as n from charges where id = ?', [id]))[0].n);

test('with no worker: 503 service_unavailable + Retry-After; the retry with the same key converges on one charge', async () => {
  h.deps.temporalDeadlineMs = SHORT_DEADLINE_MS;
  const key = idempotencyKey();
  const body = chargeBody({ reference: 'deadline-1' });
  const post = () => h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body, headers: { 'Idempotency-Key': key } });

  const first = await post();
  expectError(first, 503, 'service_unavailable');
  expect(first.json.error.type).toBe('api_error');
  expect(first.headers.get('retry-after')).toBe('2');
  expect((await countRows(h.orm, m.id)).charges).toBe(0);

  // The workflow was started under the charge id the key was claimed with; it waits for a worker.
  const chargeId = await claimedChargeId(key);
  const started = await h.temporal.client.workflow.getHandle(chargeId).describe();
  expect(started.status.name).toBe('RUNNING');

  // Still no worker: the key is not stuck "in use", the answer is the same 503.
  expectError(await post(), 503, 'service_unavailable');

  await h.startWorker();
  h.deps.temporalDeadlineMs = GENEROUS_DEADLINE_MS;
  const retried = await post();
  expect(retried.status).toBe(200);
  expect(retried.json.id).toBe(chargeId);
  expect(retried.headers.get('idempotent-replayed')).toBeNull();
  expect((await h.settled(chargeId)).status).toBe('succeeded');

  // One charge, one workflow run (the one the first call started), and the answer is now stored.
  expect(await chargeRows(chargeId)).toBe(1);
  expect((await countRows(h.orm, m.id)).charges).toBe(1);
  expect((await h.temporal.client.workflow.getHandle(chargeId).describe()).runId).toBe(started.runId);
  const replayed = await post();
  expect(replayed.status).toBe(200);
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(replayed.text).toBe(retried.text);
});

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cliReverse(chargeId: string, deadlineMs: number): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  Object.assign(env, {
    DATABASE_URL: process.env.TEST_DATABASE_URL,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: h.taskQueue,
    TEMPORAL_REQUEST_DEADLINE_MS: String(deadlineMs),
  });
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'charges', 'reverse', chargeId], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: number | string }).code as number | null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

test('charges reverse with no worker: exit 1 with a clear message; the reversal keeps running and finishes later', async () => {
  await h.startWorker();
  h.deps.temporalDeadlineMs = GENEROUS_DEADLINE_MS;
  const created = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody({ reference: 'deadline-2' }), headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(created.status).toBe(200);
  const chargeId: string = created.json.id;
  expect((await h.settled(chargeId)).status).toBe('succeeded');
  await h.stopWorker();

  const cli = await cliReverse(chargeId, SHORT_DEADLINE_MS);
  expect({ code: cli.code, stdout: cli.stdout }).toEqual({ code: 1, stdout: '' });
  expect(cli.stderr).toContain(`the reversal of ${chargeId} did not finish within 1.5 s`);
  expect(cli.stderr).toMatch(/run the same command again/);

  // The same command again joins the running reversal (no "already started" error): still pending.
  await expect(reverseCharge(h.orm, h.temporal, h.taskQueue, chargeId, SHORT_DEADLINE_MS)).rejects.toThrow(/did not finish within/);
  const reversal = await h.temporal.client.workflow.getHandle(chargeId).describe();
  expect({ type: reversal.type, status: reversal.status.name }).toEqual({ type: 'chargeReversalWorkflow', status: 'RUNNING' });

  await h.startWorker();
  expect((await h.settled(chargeId)).status).toBe('reversed');
  const fetched = await h.request('sandbox', 'GET', `/v1/charges/${chargeId}`, { key: m.testKey });
  expect(fetched.json.status).toBe('reversed');
});
