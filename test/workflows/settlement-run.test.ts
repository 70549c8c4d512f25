import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { Environment } from '../../src/domain/environment';
import { NO_SETTLEMENT_ACCOUNT } from '../../src/domain/settlement-run';
import { randomBase62 } from '../../src/support/new-id';
import { SETTLEMENT_RUN_INPUT_REFUSED } from '../../workflows/settlement-run';
import { startSettlementRunTestEnv, type FakeBalance, type SettlementRunTestEnv } from './support/settlement-run-env';

// settlementRunWorkflow on the time-skipping test server: its page step in memory
// (FakeSettlementBalances, paged by key as the store does), and a test double registered as
// `settlementWorkflow` that reports how each batch was started.

let h: SettlementRunTestEnv;
beforeAll(async () => {
  h = await startSettlementRunTestEnv();
});
afterAll(async () => {
  await h?.close();
});
// Each test's balances alone (a run over all merchants sees only them).
beforeEach(() => {
  h.store.balances = [];
});

const T = temporal.api.enums.v1.EventType;
const STL_ID = /^stl_[0-9A-Za-z]{24}$/;

/** Merchant ids of one test, in key order. */
function merchants(n: number): string[] {
  const prefix = `mer_${randomBase62(10)}`;
  return Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
}

const balance = (merchantId: string, environment: Environment, currency = 'GHS', hasAccount = true): FakeBalance => ({ merchantId, environment, currency, hasAccount });
const key = (b: { merchantId: string; environment: string; currency: string }) => `${b.merchantId}/${b.environment}/${b.currency}`;

async function events(workflowId: string, runId?: string) {
  const history = await h.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  return history.events ?? [];
}

test('pages through the balances by key: one batch per balance with an account, on its environment\'s queue, ids stl_…, search attributes, ABANDON', async () => {
  const [a, b, c] = merchants(3);
  h.store.add(balance(a, 'sandbox'), balance(a, 'live'), balance(a, 'sandbox', 'NGN'), balance(b, 'sandbox'), balance(c, 'live'), balance(c, 'sandbox', 'KES'));
  const handle = await h.start({ merchantId: a, limits: { pageSize: 2 } });
  const result = await handle.result();

  expect(result).toMatchObject({ runId: handle.workflowId, started: 3, skipped: 0, pages: 2, continuations: 0, skips: [] });
  // Pages of 2 after each last key: a/live/GHS, a/sandbox/GHS | a/sandbox/NGN (short page: the end).
  const pages = h.store.pages.filter((p) => p.runId === handle.workflowId);
  expect(pages.map((p) => [p.after && key(p.after), p.limit, p.merchantId])).toEqual([
    [null, 2, a],
    [`${a}/sandbox/GHS`, 2, a],
  ]);
  expect(result.batches.map(key)).toEqual([`${a}/live/GHS`, `${a}/sandbox/GHS`, `${a}/sandbox/NGN`]);

  const started = await h.batchesOf(result);
  for (const [i, s] of started.entries()) {
    const batch = result.batches[i];
    expect(s.workflowId).toMatch(STL_ID);
    expect(s.workflowId).toBe(batch.settlementId);
    expect(s.input).toEqual({ settlementId: batch.settlementId, merchantId: a, environment: batch.environment, currency: batch.currency, outcome: null, runId: handle.workflowId });
    expect(s.taskQueue).toBe(`${h.taskQueue}-${batch.environment}`);
    expect(s.parentWorkflowId).toBe(handle.workflowId);
    expect(s.searchAttributes).toEqual({ MerchantId: a, Environment: batch.environment, Currency: batch.currency, NeedsAttention: false });
  }
  expect(new Set(started.map((s) => s.workflowId)).size).toBe(3);

  // Each child started with ParentClosePolicy ABANDON; the run itself ran on the live queue (it spans both environments).
  const initiated = (await events(handle.workflowId)).filter((e) => e.eventType === T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED);
  expect(initiated.map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes!.parentClosePolicy)).toEqual(
    [1, 2, 3].map(() => temporal.api.enums.v1.ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON),
  );
  expect((await handle.describe()).taskQueue).toBe(`${h.taskQueue}-live`);
});

test('merchants without a settlement account are skipped with the reason kept, never started', async () => {
  const [withAccount, without] = merchants(2);
  h.store.add(balance(withAccount, 'sandbox'), balance(without, 'sandbox', 'GHS', false), balance(without, 'live', 'GHS', false));
  const runs = await Promise.all([withAccount, without].map((m) => h.start({ merchantId: m })));
  const [settled, skipped] = await Promise.all(runs.map((r) => r.result()));

  expect(settled).toMatchObject({ started: 1, skipped: 0 });
  expect(skipped).toMatchObject({ started: 0, skipped: 2, batches: [] });
  expect(skipped.skips).toEqual([
    { merchantId: without, environment: 'live', currency: 'GHS', reason: NO_SETTLEMENT_ACCOUNT },
    { merchantId: without, environment: 'sandbox', currency: 'GHS', reason: NO_SETTLEMENT_ACCOUNT },
  ]);
  expect(h.store.skips.get(`${without}/sandbox/GHS`)).toEqual({ reason: NO_SETTLEMENT_ACCOUNT, runId: runs[1].workflowId });
  expect((await events(runs[1].workflowId)).some((e) => e.eventType === T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)).toBe(false);
  expect((await h.batchesOf(settled)).map((s) => s.input.merchantId)).toEqual([withAccount]);
});

test('continues as new after pagesPerRun pages, carrying the key and the totals: each balance started exactly once over the chain', async () => {
  const ms = merchants(11);
  // 11 merchants × sandbox: 9 with an account, 2 without (the 3rd and the 8th).
  h.store.add(...ms.map((m, i) => balance(m, 'sandbox', 'GHS', i !== 2 && i !== 7)));
  const handle = await h.start({ environment: 'sandbox', limits: { pageSize: 2, pagesPerRun: 2 } });
  const result = await handle.result();

  // 6 pages (2,2,2,2,2,1) in 3 runs of at most 2 pages: two continue-as-new hand-overs.
  expect(result).toMatchObject({ runId: handle.workflowId, started: 9, skipped: 2, pages: 6, continuations: 2 });
  expect(new Set(result.batches.map(key))).toEqual(new Set(ms.filter((_, i) => i !== 2 && i !== 7).map((m) => `${m}/sandbox/GHS`)));
  expect(result.skips.map((s) => s.merchantId)).toEqual([ms[2], ms[7]]);
  const started = await h.batchesOf(result);
  expect(new Set(started.map((s) => s.workflowId)).size).toBe(9);
  expect(started.every((s) => s.input.runId === handle.workflowId && s.taskQueue === `${h.taskQueue}-sandbox`)).toBe(true);

  // The first run's history holds its two pages only (merchants 0, 1 | 2 skipped, 3) and ends in continue-as-new.
  const first = await events(handle.workflowId, handle.firstExecutionRunId);
  expect(first.at(-1)!.eventType).toBe(T.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
  expect(first.filter((e) => e.eventType === T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)).toHaveLength(3);
  const pages = h.store.pages.filter((p) => p.runId === handle.workflowId);
  expect(pages.map((p) => p.after && p.after.merchantId)).toEqual([null, ms[1], ms[3], ms[5], ms[7], ms[9]]);

  // The batch ids come from the workflow's seeded uuid4: a replay of the history issues the same starts.
  const history = await h.env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
  await expect(Worker.runReplayHistory({ workflowBundle: await h.bundle() }, history, handle.workflowId)).resolves.toBeUndefined();
});

test('--outcome failed reaches sandbox batches only; a run limited to the sandbox runs on the sandbox queue', async () => {
  const [m] = merchants(1);
  h.store.add(balance(m, 'sandbox'), balance(m, 'live'));
  const handle = await h.start({ merchantId: m, environment: 'sandbox', outcome: 'failed' });
  const result = await handle.result();
  expect(result.batches.map(key)).toEqual([`${m}/sandbox/GHS`]);
  expect((await h.batchesOf(result)).map((s) => s.input.outcome)).toEqual(['failed']);
  expect((await handle.describe()).taskQueue).toBe(`${h.taskQueue}-sandbox`);

  // Over both environments, a live batch never carries the sandbox outcome.
  const both = await (await h.start({ merchantId: m, outcome: 'failed' })).result();
  expect((await h.batchesOf(both)).map((s) => [s.input.environment, s.input.outcome])).toEqual([
    ['live', null],
    ['sandbox', 'failed'],
  ]);
});

test('a page that is exactly full is followed by an empty one; nothing to settle completes with zero counts', async () => {
  const [m] = merchants(1);
  h.store.add(balance(m, 'sandbox'), balance(m, 'live'));
  const full = await (await h.start({ merchantId: m, limits: { pageSize: 2 } })).result();
  expect(full).toMatchObject({ started: 2, pages: 2 });
  const [nobody] = merchants(1);
  expect(await (await h.start({ merchantId: nobody })).result()).toMatchObject({ started: 0, skipped: 0, pages: 1, batches: [], skips: [] });
});

test.each([
  [{ outcome: 'failed', environment: 'live' }, /sandbox control/],
  [{ environment: 'test' }, /environment must be sandbox or live/],
  [{ limits: { pageSize: 0 } }, /limits.pageSize/],
])('input %j is refused (SettlementRunInputRefused), nothing read', async (input, message) => {
  const handle = await h.start({}, { raw: input });
  const error = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
  expect([cause.type, cause.nonRetryable]).toEqual([SETTLEMENT_RUN_INPUT_REFUSED, true]);
  expect(cause.message).toMatch(message);
  expect(h.store.pages.filter((p) => p.runId === handle.workflowId)).toEqual([]);
});

