import { temporal as proto } from '@temporalio/proto';
import type { ChargeAttention } from '../../src/domain/charge-attention';
import { startMonitorSampler } from '../../src/runtime/monitor-sampler';
import { decidePayout } from '../../src/services/decide-payout';
import type { StuckPayment } from '../../src/services/stuck-payments';
import { createLogger } from '../../src/support/logger';
import { createApiMetrics } from '../../src/support/metrics';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { readBuildCoverage, unpolledBuilds } from '../../src/temporal/worker-builds';
import { ok, refused } from '../support/cli-results';
import { until } from '../support/crash-probes';
import { bundleNextBuild, type NextBuildBundle } from '../support/next-build-bundle';
import { fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { checkAlerts, scrapedSeries } from '../support/promtool-alerts';
import { cliEnv, execCli } from '../support/run-cli';
import { giveSettlementAccount } from '../support/settlement-runs';
import { killAllWorkers, startWorkerChild, type WorkerChild } from '../support/worker-child';
import { deploymentCli, requireWorkerDeployments, versionTaskQueues } from '../support/worker-deployment-cli';

/**
 * Issue 31, finding 8: a release cannot strand a payment. On the suite's dev server, with the real
 * worker process (workers/main.ts) for each build of this file's Worker Deployment, all running this
 * checkout's workflow code, and the CLI as a process:
 *
 * 1. A failed settlement batch pinned to build A is retried after build B became current: the retry
 *    reaches the batch's run on B (it continued as new there) and the new batch starts on B, not A.
 * 2. Build B is retired (its worker stopped, C current) while a payout held for review and a failed
 *    settlement batch are pinned to it: `payments stuck` lists both with build B, the metrics sampler
 *    exports B's zero pollers and its open runs, and on that scrape PaymentsPinnedBuildWithoutPollers
 *    fires (promtool); `payments move-build` refuses a replay that fails (a dry run from a checkout
 *    whose payout code differs), then a dry run and `--yes --token` move both to C, audited; the
 *    payout is approved and finishes on C, the batch is retried there.
 */

const { VersioningBehavior } = proto.api.enums.v1;
jest.setTimeout(420_000);

let h: Harness;
let deployment: string;
let nextBuild: NextBuildBundle | undefined;
let nextBuildBundle: string;
const workers: Record<string, WorkerChild> = {};

beforeAll(async () => {
  h = await startHarness({ worker: false });
  const { serverVersion } = await h.temporal.connection.workflowService.getSystemInfo({});
  await requireWorkerDeployments(serverVersion ?? '');
  deployment = `payments-${h.taskQueue}`;
  // A checkout whose payout workflow differs (test/support/next-build-workflows.ts): a payout of this
  // code does not replay on it.
  nextBuild = await bundleNextBuild();
  nextBuildBundle = nextBuild.path;
});
afterAll(async () => {
  await killAllWorkers();
  await h?.close();
  nextBuild?.remove();
});

// The CLI as its own process (a move-build replays in the process that runs it), as an operator runs it.
const cli = (...args: string[]) => execCli(args, cliEnv(h.taskQueue), { process: true });
/** The CLI of one build (issue 43: payments move-build runs only from the image of the build it moves to). */
const cliOf = (buildId: string, extra: Record<string, string> = {}) => (...args: string[]) =>
  execCli(args, cliEnv(h.taskQueue, { WORKER_DEPLOYMENT_NAME: deployment, WORKER_BUILD_ID: buildId, ...extra }), { process: true });
const sandboxQueue = () => taskQueueFor(h.taskQueue, 'sandbox');

/** Both environments' queues, their webhook delivery queues and the legacy one, workflow and activity tasks: what `set-current-version` checks. */
const allQueues = () =>
  [h.taskQueue, `${h.taskQueue}-live`, `${h.taskQueue}-sandbox`, `${h.taskQueue}-live-webhooks`, `${h.taskQueue}-sandbox-webhooks`]
    .flatMap((q) => [`${q} activity`, `${q} workflow`])
    .sort();

/** The real worker process registering `buildId` of this file's deployment, made current once it polls every queue. */
async function currentBuild(buildId: string): Promise<WorkerChild> {
  const worker = await startWorkerChild({ taskQueue: h.taskQueue, env: { WORKER_DEPLOYMENT_NAME: deployment, WORKER_BUILD_ID: buildId } });
  workers[buildId] = worker;
  await until(`${buildId} polls every task queue of the deployment`, async () => (await versionTaskQueues(deployment, buildId)).join() === allQueues().join(), 300, 100);
  await deploymentCli('set-current-version', '--deployment-name', deployment, '--build-id', buildId, '--yes');
  return worker;
}

async function versioningInfo(id: string, runId?: string) {
  const info = (await h.temporal.client.workflow.getHandle(id, runId).describe()).raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, buildId: info?.deploymentVersion?.buildId, override: info?.versioningOverride?.pinned?.version?.buildId ?? null };
}

/** Every run of a workflow id, oldest first: run id and status. */
async function runsOf(id: string) {
  const runs: Array<{ runId: string; status: string; started: number }> = [];
  for await (const wf of h.temporal.client.workflow.list({ query: `WorkflowId = '${id}'` })) runs.push({ runId: wf.runId, status: wf.status.name, started: wf.startTime.getTime() });
  return runs.sort((a, b) => a.started - b.started);
}

/** The build ids of the workflow tasks a run's history completed, in order. */
async function taskBuilds(id: string, runId?: string): Promise<string[]> {
  const events = (await h.temporal.client.workflow.getHandle(id, runId).fetchHistory()).events ?? [];
  return events.filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => e.workflowTaskCompletedEventAttributes!.deploymentVersion?.buildId ?? '');
}

async function settlementMerchant(amount: number): Promise<TestMerchant> {
  const merchant = await h.merchant();
  await fundMerchant(h, merchant.id, amount);
  await giveSettlementAccount(h, merchant.id);
  return merchant;
}

/** `settlements run --outcome failed` for the merchant; its one batch, failed (its payment advanced) and waiting for a retry. */
async function failedBatch(merchant: TestMerchant): Promise<string> {
  const run = ok(await cli('settlements', 'run', '--merchant', merchant.id, '--env', 'test', '--outcome', 'failed', '--reason', 'test setup', '--operator', 'test@ops'));
  expect(run.batches).toHaveLength(1);
  const id: string = run.batches[0].id;
  const handle = h.temporal.client.workflow.getHandle(id);
  await until(`${id} waits on its payment`, async () => (await handle.query('nextTimer').catch(() => null)) !== null);
  expect((await h.request('sandbox', 'POST', `/v1/sandbox/advance/${id}`, { key: merchant.testKey })).status).toBe(200);
  await until(`${id} waits for a retry`, async () => (await handle.query<ChargeAttention>('chargeAttention').catch(() => null))?.needsAttention === true);
  return id;
}

async function heldPayout(merchant: TestMerchant): Promise<string> {
  const held = await h.request('sandbox', 'POST', '/v1/payouts', {
    key: merchant.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: { amount: 40_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: 'retire-held', metadata: { sandbox_outcome: 'held_for_review' } },
  });
  expect([held.status, held.json?.status]).toEqual([200, 'held_for_review']);
  const id: string = held.json.id;
  const handle = h.temporal.client.workflow.getHandle(id);
  await until(`${id} waits for review`, async () => ((await handle.query<{ summary: string } | null>('nextTimer').catch(() => null))?.summary ?? '').startsWith('review timeout'));
  return id;
}

test('a failed settlement batch pinned to build A, retried after build B became current: the retry reaches it on B and the new batch starts on B', async () => {
  await currentBuild('build-a');
  const merchant = await settlementMerchant(30_000);
  const batchId = await failedBatch(merchant);
  expect(await versioningInfo(batchId)).toMatchObject({ behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, buildId: 'build-a' });
  const [firstRun] = await runsOf(batchId);

  await currentBuild('build-b');
  const retried = ok(await cli('settlements', 'retry', batchId, '--reason', 'bank account fixed'));
  expect(retried).toMatchObject({ id: batchId, status: 'failed', retried_as: expect.stringMatching(/^stl_/) });

  // The batch's run on A continued as new (the retry was refused there, in the same task); the run
  // that took the retry ran on B only.
  const runs = await runsOf(batchId);
  expect(runs.map((r) => r.status)).toEqual(['CONTINUED_AS_NEW', 'COMPLETED']);
  expect(runs[0]!.runId).toBe(firstRun!.runId);
  expect(new Set(await taskBuilds(batchId, runs[0]!.runId))).toEqual(new Set(['build-a']));
  expect(new Set(await taskBuilds(batchId, runs[1]!.runId))).toEqual(new Set(['build-b']));
  // The new batch started on B (before issue 31 it inherited A) and is paid there.
  const newBatch = h.temporal.client.workflow.getHandle(retried.retried_as);
  expect(await newBatch.result()).toMatchObject({ status: 'paid', amount: 30_000 });
  expect(await versioningInfo(retried.retried_as)).toMatchObject({ behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, buildId: 'build-b' });
  expect(new Set(await taskBuilds(retried.retried_as))).toEqual(new Set(['build-b']));

  // Nothing is left on A: its worker stops.
  await until('no run left on build A', async () => Number((await h.temporal.client.workflow.count(`TemporalWorkerDeploymentVersion = '${deployment}:build-a' AND ExecutionStatus = 'Running'`)).count) === 0);
  await workers['build-a']!.stop();
});

test('build B retired with runs pinned to it: payments stuck lists them with the build, the sampler and the alert see it, and payments move-build moves them to build C after a replay', async () => {
  const merchant = await settlementMerchant(100_000);
  const payoutId = await heldPayout(merchant);
  const batchMerchant = await settlementMerchant(20_000);
  const batchId = await failedBatch(batchMerchant);
  for (const id of [payoutId, batchId]) expect(await versioningInfo(id)).toMatchObject({ behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, buildId: 'build-b' });

  // C becomes current, then B is retired too early: its worker stops with the two runs still pinned to it.
  const c = await currentBuild('build-c');
  await workers['build-b']!.stop();
  await until(
    'build B shows no poller on the sandbox queue (the server forgets a poller a minute after its last poll)',
    async () => unpolledBuilds(await readBuildCoverage(h.temporal, h.taskQueue, 20_000)).some((b) => b.buildId === 'build-b' && b.taskQueue === sandboxQueue()),
    120,
    1_000,
  );

  // payments stuck: both, with the build and the way out.
  const stuck = ok(await cli('payments', 'stuck', '--env', 'test')).data as StuckPayment[];
  for (const id of [payoutId, batchId]) {
    expect(stuck.find((p) => p.id === id)).toMatchObject({
      workflow: 'build_unpolled',
      build_id: 'build-b',
      deployment,
      reason: expect.stringMatching(new RegExp(`^pinned to build build-b of worker deployment ${deployment}, which no worker polls on ${sandboxQueue()} .*payments move-build --query "WorkflowId = '${id}'" --to-build build-c`)),
    });
  }

  // The sampler: B's pollers 0 and its open runs on the sandbox queue; C polls.
  const metrics = createApiMetrics();
  const sampler = startMonitorSampler({ registry: metrics.registry, orm: h.orm, temporal: h.temporal, taskQueue: h.taskQueue, log: createLogger('silent'), deadlineMs: 20_000 }, 3_600_000);
  let text: string;
  try {
    await sampler.sample();
    text = await metrics.registry.metrics();
  } finally {
    await sampler.stop();
  }
  const sample = (name: string, labels: string) => Number(new RegExp(`^${name}\\{${labels.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const at = (type: string, build: string) => `environment="sandbox",task_queue="${sandboxQueue()}",task_type="${type}",build_id="${build}"`;
  expect([sample('payments_task_queue_pollers', at('workflow', 'build-b')), sample('payments_task_queue_pollers', at('activity', 'build-b'))]).toEqual([0, 0]);
  expect(sample('payments_task_queue_pollers', at('workflow', 'build-c'))).toBeGreaterThanOrEqual(1);
  expect(sample('payments_open_runs_by_build', `environment="sandbox",task_queue="${sandboxQueue()}",build_id="build-b"`)).toBeGreaterThanOrEqual(2);
  // On those very series PaymentsPinnedBuildWithoutPollers fires for B wherever B holds runs, and PaymentsNoPollers does not.
  const series = [...scrapedSeries(text, 'payments_task_queue_pollers'), ...scrapedSeries(text, 'payments_open_runs_by_build')];
  const bQueues = [...text.matchAll(/^payments_open_runs_by_build\{environment="(\w+)",task_queue="([^"]+)",build_id="build-b"\} (\S+)$/gm)].filter((m) => Number(m[3]) > 0);
  expect(bQueues.map((m) => m[2])).toContain(sandboxQueue());
  // Always checked: promtool comes with npm install; where it is missing this fails, naming scripts/install-promtool.sh (test/support/promtool.ts).
  const alerts = await checkAlerts(series, [
    { at: '10m', alert: 'PaymentsPinnedBuildWithoutPollers', fires: bQueues.map((m) => ({ severity: 'critical', environment: m[1]!, task_queue: m[2]!, build_id: 'build-b' })) },
    { at: '10m', alert: 'PaymentsNoPollers', fires: [] },
  ]);
  expect(alerts).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });

  const query = `TemporalWorkerDeploymentVersion = '${deployment}:build-b'`;
  const move = (...args: string[]) => cliOf('build-c')('payments', 'move-build', '--to-build', 'build-c', '--reason', 'build B retired too early', ...args);
  // Only from the CLI of the build the runs go to (its code is what they are replayed against).
  refused(await cli('payments', 'move-build', '--to-build', 'build-c', '--reason', 'x', '--query', query), /this CLI has no WORKER_BUILD_ID/);
  refused(await cliOf('build-b')('payments', 'move-build', '--to-build', 'build-c', '--reason', 'x', '--query', query), /this CLI is build build-b \(WORKER_BUILD_ID\), not --to-build build-c/);
  // Only to the build new runs go to.
  refused(await cliOf('build-a')('payments', 'move-build', '--to-build', 'build-a', '--reason', 'x', '--query', query), /build build-a is neither the current nor the ramping build/);
  // A checkout whose payout code differs: the payout's replay fails and it is refused (not in the set); the batch replays.
  const otherCode = ok(await cliOf('build-c', { WORKFLOW_BUNDLE_PATH: nextBuildBundle })('payments', 'move-build', '--to-build', 'build-c', '--reason', 'x', '--query', query));
  expect(otherCode.refused).toEqual([{ id: payoutId, error: expect.stringMatching(/^its history does not replay on this workflow code: /) }]);
  expect(otherCode.first.map((r: { id: string }) => r.id)).toContain(batchId);
  expect(otherCode.first.map((r: { id: string }) => r.id)).not.toContain(payoutId);

  // The dry run: both, replayed; nothing moved yet.
  const dry = ok(await move('--query', query));
  expect(dry).toMatchObject({ dry_run: true, deployment, to_build: 'build-c', refused: [], by_build: { 'build-b': dry.count }, token: expect.stringMatching(/^opsel_/) });
  expect(dry.first.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining([payoutId, batchId]));
  expect(await versioningInfo(payoutId)).toMatchObject({ buildId: 'build-b', override: null });
  refused(await move('--query', query, '--yes'), /--yes moves only the set a dry run showed/);
  // Apply: exactly the dry run's runs, each audited.
  const applied = ok(await move('--query', query, '--yes', '--token', dry.token));
  expect(applied).toMatchObject({ dry_run: false, count: dry.count, succeeded: dry.count, failed: 0, batch_id: expect.stringMatching(/^opb_/) });
  refused(await move('--query', query, '--yes', '--token', dry.token), /was used already/);
  // Pinned to C by an override (the build they last ran on stays B until their next task).
  for (const id of [payoutId, batchId]) expect(await versioningInfo(id)).toMatchObject({ behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, override: 'build-c' });
  refused(await cliOf('build-c')('payments', 'move-build', payoutId, '--to-build', 'build-c', '--reason', 'again'), /already on build build-c/);
  const audit = await h.orm.em
    .getConnection()
    .execute<Array<{ payment_id: string; operator: string; reason: string; state_before: { build_id: string }; state_after: { build_id: string }; batch_id: string }>>(
      `select payment_id, operator, reason, state_before, state_after, batch_id from operator_audit where action = 'payment.move_build' and payment_id in (?, ?) order by payment_id`,
      [payoutId, batchId],
    );
  expect(audit.map((r) => [r.payment_id, r.operator, r.reason, r.state_before.build_id, r.state_after.build_id, r.batch_id])).toEqual(
    [batchId, payoutId].sort().map((id) => [id, expect.stringMatching(/^cli:/), 'build B retired too early', 'build-b', 'build-c', applied.batch_id]),
  );
  expect((ok(await cli('payments', 'stuck', '--env', 'test')).data as StuckPayment[]).filter((p) => p.workflow === 'build_unpolled')).toEqual([]);

  // They run again, on C: the payout is approved and paid out, the batch retried.
  const approved = JSON.parse(await decidePayout(h.orm, h.temporal, payoutId, 'approve', 'approved after the move to build C', 30_000, 'test:versioning'));
  expect(approved).toMatchObject({ id: payoutId, status: 'pending' });
  expect(await h.temporal.client.workflow.getHandle(payoutId).result()).toMatchObject({ id: payoutId, status: 'succeeded' });
  const payoutBuilds = await taskBuilds(payoutId);
  expect(payoutBuilds[0]).toBe('build-b');
  expect(payoutBuilds[payoutBuilds.length - 1]).toBe('build-c');
  const retried = ok(await cli('settlements', 'retry', batchId, '--reason', 'bank account fixed'));
  expect(await h.temporal.client.workflow.getHandle(retried.retried_as).result()).toMatchObject({ status: 'paid', amount: 20_000 });
  expect(await versioningInfo(retried.retried_as)).toMatchObject({ buildId: 'build-c' });
  void c;
});
