/**
 * Records the settlementWorkflow histories that test/replay/settlement-replay.test.ts replays against
 * the current workflow code, as test/replay/histories/settlementWorkflow/<scenario>.json, on the
 * time-skipping test server with the in-memory activities of test/workflows/support/settlement-env.ts.
 * (A directory of their own: a settlement run refuses to run under a workflow id other than its
 * settlement id, so the replay gives each history the settlement id of its input.) A failed batch's
 * run stays open until `retrySettlement`: `failed`, `live-failed` and `failed-advanced` are histories
 * up to that wait; `*-retried` are whole ones, `retry-new-batch-*` the new batch a retry started.
 *
 *   npx tsx scripts/record-settlement-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import type { ChargeAttention } from '../src/domain/charge-attention';
import { COMPLETION_DELAY_MS } from '../src/domain/sandbox-outcome';
import { startSettlementTestEnv, type SettlementStartOptions, type SettlementTestEnv } from '../test/workflows/support/settlement-env';
import { waitFor } from '../test/workflows/support/wait-for';
import { retrySettlementUpdate } from '../workflows/settlement-retry-messages';
import { BUILD_CHECK_INTERVAL_MS } from '../workflows/settlement-retry';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../src/domain/settlement-start';
import { settlementStartSearchAttributePairs } from '../src/domain/settlement-search-attributes';
import { newId } from '../src/support/new-id';
import { taskQueueFor } from '../src/temporal/task-queues';
import { settlementStateQuery } from '../workflows/settlement';
import { queriedBeforeItsWorker } from '../test/workflows/support/query-before-worker';
import { recordScenarios, runRecorder, type History } from './support/record-histories';
import { PARTNER_CALLBACK_SIGNAL } from '../src/domain/live-rail';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/settlementWorkflow');

async function run(h: SettlementTestEnv, options: SettlementStartOptions): Promise<History> {
  const handle = await h.start(options);
  await handle.result().catch(() => undefined);
  return handle.fetchHistory();
}

async function advanced(h: SettlementTestEnv, options: SettlementStartOptions): Promise<History> {
  const handle = await h.start(options);
  await waitFor(async () => (await handle.query('nextTimer')) !== null);
  await handle.signal('advance');
  await handle.result();
  return handle.fetchHistory();
}

/** A batch that fails, up to where its run waits for an operator (open: the history so far); the handle to go on. */
async function failedAndWaiting(h: SettlementTestEnv, options: SettlementStartOptions, how: 'timer' | 'advance' = 'timer') {
  const handle = await h.start(options);
  if ((options.environment ?? 'sandbox') === 'sandbox') {
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    if (how === 'advance') await handle.signal('advance');
    else await h.env.sleep(COMPLETION_DELAY_MS);
  }
  await waitFor(async () => (await handle.query<ChargeAttention>('chargeAttention')).needsAttention);
  return handle;
}

/** A failed batch retried (`retrySettlement`): the failed run's whole history, and the new batch's. */
async function retried(h: SettlementTestEnv, options: SettlementStartOptions, before?: (merchantId: string) => Promise<void>) {
  const handle = await failedAndWaiting(h, options);
  if (before) await before(options.merchantId!);
  const answer = await handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'settlement account corrected', by: 'cli:recorder' }] });
  await handle.result();
  const child = h.env.client.workflow.getHandle(answer.retried_as);
  // A live batch fails again (no live rail) and waits in its turn; a sandbox one ends.
  if (options.environment === 'live') await waitFor(async () => (await child.query<ChargeAttention>('chargeAttention')).needsAttention);
  else await child.result();
  return { failed: await handle.fetchHistory(), next: await child.fetchHistory() };
}

/** A failed batch's money swept by another batch first (as a settlement run would), then the retry. */
const sweptFirst = (h: SettlementTestEnv) => async (merchantId: string) => {
  await (await h.start({ merchantId })).result();
};

/**
 * Issue 32 follow-up (patch 'patches-at-start'): a live batch queried while its sweep runs, so the
 * first workflow task ends with the sweep's marker and the rail starts in the next one
 * (test/workflows/support/query-before-worker.ts); the partner pays it.
 */
async function queriedDuringSweep(h: SettlementTestEnv): Promise<History> {
  const merchantId = h.merchant(30_000, 'live');
  h.rail.partner({ kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'ft-recorded-split' }]);
  const input: SettlementStart = { settlementId: newId('settlement'), merchantId, environment: 'live', currency: 'GHS', outcome: null, runId: 'run_recorded' };
  const { handle, worker, firstAnswer } = await queriedBeforeItsWorker({
    env: h.env,
    start: (base) =>
      h.env.client.workflow.start(SETTLEMENT_WORKFLOW_TYPE, {
        workflowId: input.settlementId,
        taskQueue: taskQueueFor(base, 'live'),
        args: [input],
        typedSearchAttributes: settlementStartSearchAttributePairs(input),
      }),
    queueOf: (base) => taskQueueFor(base, 'live'),
    query: settlementStateQuery,
    activities: { ...h.store.activities, ...h.rail.activities },
  });
  return worker.runUntil(async () => {
    await firstAnswer;
    await handle.result();
    return handle.fetchHistory();
  });
}

/**
 * Issue 43 (patch 'partner-wait-continues-as-new'): a live batch the partner keeps PENDING until its
 * wait continues as new; a callback, then SUCCESSFUL, pays it in the second run, which is recorded
 * (its input carries the wait: `resume`). The first run (about PARTNER_WAIT_HISTORY_EVENTS events) is
 * not kept: test/workflows/settlement-partner-wait-continues.test.ts runs it.
 */
async function resumedWait(h: SettlementTestEnv): Promise<History> {
  let paid = false;
  h.rail.partner({ kind: 'accepted' }, []).statusBy(() => (paid ? { status: 'succeeded', financialTransactionId: 'ft-recorded-resumed' } : { status: 'pending' }));
  const handle = await h.start({ merchantId: h.merchant(9_000, 'live'), environment: 'live' });
  const latest = h.env.client.workflow.getHandle(handle.workflowId);
  const first = (await latest.describe()).runId;
  for (let hour = 0; (await latest.describe()).runId === first; hour++) {
    if (hour > 72) throw new Error('the wait never continued as new');
    await h.env.sleep(3600_000);
  }
  const second = (await latest.describe()).runId;
  paid = true;
  await latest.signal(PARTNER_CALLBACK_SIGNAL);
  await latest.result();
  return h.env.client.workflow.getHandle(handle.workflowId, second).fetchHistory();
}

const SCENARIOS: Record<string, (h: SettlementTestEnv) => Promise<History>> = {
  // Issue 32 follow-up (patch 'patches-at-start'): a query splits the first task after the sweep's marker.
  'live-sweep-query-splits-first-task': queriedDuringSweep,
  paid: (h) => run(h, { merchantId: h.merchant(40_000) }),
  // A failed batch's run stays open until retried: these three are the history up to that wait.
  failed: async (h) => (await failedAndWaiting(h, { merchantId: h.merchant(25_000), outcome: 'failed' })).fetchHistory(),
  'live-failed': async (h) => (await failedAndWaiting(h, { merchantId: h.merchant(9_000, 'live'), environment: 'live' })).fetchHistory(),
  'failed-advanced': async (h) => (await failedAndWaiting(h, { merchantId: h.merchant(3_000), outcome: 'failed' }, 'advance')).fetchHistory(),
  'nothing-no-balance': (h) => run(h, { merchantId: h.merchant(0) }),
  // Issue 29 (patch 'partner-word-only'): a live batch on the partner rail, paid on its word.
  'live-word-paid': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-recorded' }]);
    return run(h, { merchantId: h.merchant(9_000, 'live'), environment: 'live' });
  },
  // Issue 43 (patch 'partner-wait-continues-as-new'): the wait's second run, resumed, paid on a callback.
  'live-wait-resumed-paid': resumedWait,
  // Issue 43 (same patch): `unknown` after a PENDING is not final: flagged, asked on, then SUCCESSFUL.
  'live-wait-acknowledged-unknown-paid': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'unknown' }, { status: 'unknown' }, { status: 'succeeded', financialTransactionId: 'ft-recorded-ack' }]);
    return run(h, { merchantId: h.merchant(9_000, 'live'), environment: 'live' });
  },
  'nothing-no-account': (h) => run(h, {}),
  'paid-advanced': (h) => advanced(h, { merchantId: h.merchant(3_000) }),
  // retrySettlement: the failed run ends with retried_as; the new batch (its child) sweeps the released money.
  'failed-retried': async (h) => (await retried(h, { merchantId: h.merchant(25_000), outcome: 'failed' })).failed,
  'retry-new-batch-paid': async (h) => (await retried(h, { merchantId: h.merchant(25_000), outcome: 'failed' })).next,
  'live-failed-retried': async (h) => (await retried(h, { merchantId: h.merchant(9_000, 'live'), environment: 'live' })).failed,
  // Issue 31, finding 8 (patch 'settlement-wait-follows-current-build'): the failed batch's wait looks
  // for a newer current build every hour (none on the test server), then is retried.
  'failed-build-checks': async (h) => {
    const handle = await failedAndWaiting(h, { merchantId: h.merchant(4_000), outcome: 'failed' });
    await h.env.sleep(2 * BUILD_CHECK_INTERVAL_MS + 1_000);
    return handle.fetchHistory();
  },
  'failed-build-checks-retried': async (h) => {
    const handle = await failedAndWaiting(h, { merchantId: h.merchant(4_000), outcome: 'failed' });
    await h.env.sleep(2 * BUILD_CHECK_INTERVAL_MS + 1_000);
    await handle.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'settlement account corrected', operator: 'cli:recorder' }] });
    await handle.result();
    return handle.fetchHistory();
  },
  'retry-new-batch-nothing': async (h) => {
    const merchantId = h.merchant(6_000);
    return (await retried(h, { merchantId, outcome: 'failed' }, sweptFirst(h))).next;
  },
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startSettlementTestEnv }));
