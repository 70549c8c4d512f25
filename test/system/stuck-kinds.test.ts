/**
 * Issue 18, "stuck in every way, not only by status": each kind is made to happen against the
 * suite's PostgreSQL and dev server with a real worker, then found by `payments stuck`.
 * - An activity failing past ACTIVITY_ATTENTION_ATTEMPTS (3 here): the worker tells the workflow,
 *   which raises NeedsAttention with the last failure as the reason; it clears once the step succeeds.
 * - A workflow whose task keeps failing (here: a workflow type no worker knows): the server's
 *   TemporalReportedProblems flag, which `payments stuck` lists with what to do.
 * (An indeterminate charge: charge-resolve.test.ts; a step that gave up: test/system/charge-reconciler.test.ts.)
 */
import { SA } from '../../src/domain/search-attributes';
import { newId } from '../../src/support/new-id';
import { chargeAttentionQuery } from '../../workflows/messages';
import { chargeBody, idempotencyKey, startHarness, type Harness, SANDBOX_QUEUES } from '../support/harness';
import { runCli } from '../support/run-cli';
import { installChargeStatusTrigger } from '../support/charge-status-trigger';

let h: Harness;
const sql = <T extends object[] = object[]>(text: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T>(text, params);
let trigger: { remove(): Promise<void> } | undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  process.env.ACTIVITY_ATTENTION_ATTEMPTS = '3'; // read by the worker the harness starts
  h = await startHarness({ queues: SANDBOX_QUEUES });
  // Status changes of the charges whose reference is listed in test_flaky_charge_charges fail with a
  // serialisation failure (SQLSTATE 40001: transient, so the step retries).
  trigger = await installChargeStatusTrigger(h, 'test_flaky_charge', '40001');
});

afterAll(async () => {
  delete process.env.ACTIVITY_ATTENTION_ATTEMPTS;
  await trigger?.remove();
  await h?.close();
});

async function cliJson(...args: string[]): Promise<any> {
  const r = await runCli(h.taskQueue, ...args);
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  return JSON.parse(r.stdout);
}

/** Looks every 100 ms until done or `seconds` have passed (a deadline in time, not in tries: a look
 * through the in-process CLI takes milliseconds, the server's workflow task retries take seconds). */
async function eventually<T>(look: () => Promise<T>, done: (value: T) => boolean, what: string, seconds = 60): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  let value = await look();
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`never happened within ${seconds} s: ${what}`);
    await sleep(100);
    value = await look();
  }
  return value;
}

test('an activity failing past the threshold: NeedsAttention with its last failure, listed by payments stuck; cleared once it succeeds', async () => {
  const m = await h.merchant();
  const reference = `flaky-${newId('request').slice(4, 14)}`;
  await sql(`insert into test_flaky_charge_charges (reference) values (?)`, [reference]);
  const created = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, headers: { 'Idempotency-Key': idempotencyKey() }, body: chargeBody({ reference }) });
  expect(created.status).toBe(200);
  const id: string = created.json.id;
  const handle = h.temporal.client.workflow.getHandle(id);
  await eventually(() => h.request('sandbox', 'POST', `/v1/sandbox/advance/${id}`, { key: m.testKey }), (r) => r.status === 200, 'the completion timer fired');

  const attention = await eventually(() => handle.query(chargeAttentionQuery), (a) => a.needsAttention, 'NeedsAttention from the worker');
  expect(attention.step).toBe('applyChargeTransition');
  expect(attention.reason).toMatch(/^applyChargeTransition: still failing at attempt 3: .*test: charge txn_\w+ refused/);
  expect((await handle.describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
  const stuck = await cliJson('payments', 'stuck', '--query', `MerchantId = '${m.id}'`);
  expect(stuck.data).toEqual([expect.objectContaining({ id, needs_attention: true, reason: expect.stringMatching(/still failing at attempt 3/) })]);

  await sql(`delete from test_flaky_charge_charges where reference = ?`, [reference]);
  expect(await h.settled(id)).toMatchObject({ status: 'succeeded' });
  expect((await handle.describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(false);
  expect((await handle.query(chargeAttentionQuery)).needsAttention).toBe(false);
});

test('a workflow whose task keeps failing: flagged by the server, listed by payments stuck with what to do', async () => {
  const id = newId('charge');
  const handle = await h.temporal.client.workflow.start('noSuchWorkflowType', { workflowId: id, taskQueue: `${h.taskQueue}-sandbox`, args: [] });
  try {
    const stuck = await eventually(
      () => cliJson('payments', 'stuck', '--query', `WorkflowId = '${id}'`),
      (list) => list.data.length > 0,
      'the server flags the failing workflow task',
    );
    expect(stuck.data).toEqual([expect.objectContaining({ id, type: 'charge', workflow: 'needs_attention', reason: expect.stringMatching(/^workflow task keeps failing \(category=WorkflowTaskFailed/) })]);
  } finally {
    await handle.terminate('test cleanup');
  }
});
