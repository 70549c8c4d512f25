/**
 * Creates that do not wait for a worker (issue 8: write first, then start), and the deadline of the
 * operator reversal (issue 7, defect 2). POST /v1/charges used to wait for a worker (update-with-start)
 * and answer 503 without one; now it answers 200 once the charge is written and its workflow started,
 * and even when Temporal is unreachable (the charge-start relay starts the workflow later). Each
 * charge completes exactly once.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../src/http/app';
import { reverseCharge } from '../../src/services/reverse-charge';
import { countRows } from '../support/db-counts';
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant } from '../support/harness';
import { cliEnv, execCli } from '../support/run-cli';

/** Short, so the no-worker phase is quick; the retries after the worker is back use a generous one. */
const SHORT_DEADLINE_MS = 1_500;
const GENEROUS_DEADLINE_MS = 60_000;

let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  m = await h.merchant();
});
afterAll(() => h?.close());

const sql = <T>(query: string, params: unknown[]) => h.orm.em.getConnection().execute<T[]>(query, params);

/** The charge's events, in order, and its row count (exactly once: one row, one created, one succeeded). */
async function expectCompletedOnce(chargeId: string): Promise<void> {
  expect(await sql(`select status, workflow_started_at is not null as started from charges where id = ?`, [chargeId])).toEqual([{ status: 'succeeded', started: true }]);
  const events = await sql<{ type: string }>(`select type from events where resource_id = ? order by sequence`, [chargeId]);
  expect(events.map((e) => e.type)).toEqual(['transaction.created', 'transaction.succeeded']);
}

test('with no worker: 200 at once (charge written, workflow started); a worker started later completes it exactly once', async () => {
  const key = idempotencyKey();
  const body = chargeBody({ reference: 'deadline-1' });
  const post = () => h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body, headers: { 'Idempotency-Key': key } });

  const first = await post();
  expect(first.status).toBe(200);
  const chargeId: string = first.json.id;
  expect(first.json).toMatchObject({ object: 'charge', status: 'awaiting_action' });
  expect((await countRows(h.orm, m.id)).charges).toBe(1);
  const started = await h.temporal.client.workflow.getHandle(chargeId).describe();
  expect(started.status.name).toBe('RUNNING');

  // Still no worker: the same key replays the stored answer.
  const again = await post();
  expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([200, 'true', first.text]);

  await h.startWorker();
  expect((await h.settled(chargeId)).status).toBe('succeeded');
  await expectCompletedOnce(chargeId);
  expect((await h.temporal.client.workflow.getHandle(chargeId).describe()).runId).toBe(started.runId);
  await h.stopWorker();
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('with Temporal unreachable: 200 (the charge is written); the charge-start relay starts it later, exactly once', async () => {
  // The API's own Temporal client points at a closed port; the worker (and its relay) use the real server.
  const connection = Connection.lazy({ address: `127.0.0.1:${await closedPort()}` });
  const unreachable = { connection, client: new Client({ connection, namespace: 'default' }), namespace: 'default' };
  const deps = { ...h.deps, temporal: unreachable, temporalDeadlineMs: SHORT_DEADLINE_MS, chargeStartWaitMs: undefined };
  const server = http.createServer(createApp(deps, { environment: 'sandbox', bodyLimitBytes: 64 * 1024 }).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/charges`;
    const key = idempotencyKey();
    const body = JSON.stringify(chargeBody({ reference: 'deadline-unreachable' }));
    const post = async (): Promise<Pick<ApiResponse, 'status' | 'text' | 'headers'>> => {
      const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${m.testKey}`, 'content-type': 'application/json', 'Idempotency-Key': key }, body });
      return { status: response.status, headers: response.headers, text: await response.text() };
    };
    const created = await post();
    expect(created.status).toBe(200);
    const chargeId: string = JSON.parse(created.text).id;
    expect(await sql(`select workflow_started_at from charges where id = ?`, [chargeId])).toEqual([{ workflow_started_at: null }]);
    await expect(h.temporal.client.workflow.getHandle(chargeId).describe()).rejects.toThrow();
    const again = await post();
    expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([200, 'true', created.text]);

    // The relay (started with the worker) finds the unconfirmed charge and starts its workflow.
    await h.startWorker();
    let exists = false;
    for (let i = 0; i < 300 && !exists; i++) {
      exists = await h.temporal.client.workflow.getHandle(chargeId).describe().then(() => true, () => false);
      if (!exists) await delay(100);
    }
    expect(exists).toBe(true);
    expect((await h.settled(chargeId)).status).toBe('succeeded');
    await expectCompletedOnce(chargeId);
    const history = await h.temporal.client.workflow.getHandle(chargeId).fetchHistory();
    expect(history.events?.filter((e) => e.workflowExecutionStartedEventAttributes)).toHaveLength(1);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await connection.close();
    await h.stopWorker();
  }
});

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cliReverse(chargeId: string, deadlineMs: number): Promise<CliResult> {
  return execCli(['charges', 'reverse', chargeId, '--reason', 'deadline test'], cliEnv(h.taskQueue, { TEMPORAL_REQUEST_DEADLINE_MS: String(deadlineMs) }));
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
  await expect(reverseCharge(h.orm, h.temporal, h.taskQueue, chargeId, { operator: 'test', reason: 'deadline test' }, SHORT_DEADLINE_MS)).rejects.toThrow(/did not finish within/);
  const reversal = await h.temporal.client.workflow.getHandle(chargeId).describe();
  expect({ type: reversal.type, status: reversal.status.name }).toEqual({ type: 'chargeReversalWorkflow', status: 'RUNNING' });

  await h.startWorker();
  expect((await h.settled(chargeId)).status).toBe('reversed');
  const fetched = await h.request('sandbox', 'GET', `/v1/charges/${chargeId}`, { key: m.testKey });
  expect(fetched.json.status).toBe('reversed');
});
