import { temporal as proto } from '@temporalio/proto';
import { decidePayout } from '../../src/services/decide-payout';
import { until } from '../support/crash-probes';
import { bundleNextBuild, type NextBuildBundle } from '../support/next-build-bundle';
import { fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { decodedJson } from '../support/payload-codec';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';
import { killAllWorkers, startWorkerChild, type WorkerChild } from '../support/worker-child';
import { deploymentCli, describeDeployment, requireWorkerDeployments, versionTaskQueues } from '../support/worker-deployment-cli';
import { NEXT_BUILD_TIMER } from '../support/next-build-workflows';

/**
 * Worker Versioning (docs/testing.md "Releasing a new build") on the suite's dev server, with the
 * real worker process (workers/main.ts) twice over: build A (the workflow code of this checkout) and
 * build B (test/support/next-build-workflows.ts: payoutWorkflow starts with a timer A's does not
 * have, so a run of A replayed on B would fail). A is current; a payout held for review starts on
 * it and waits; B is ramped, then made current, with the CLI commands the docs give; the payout is
 * approved after the switch and finishes on A (every workflow task in its history completed by A's
 * process with A's build id, no task failure), while a payout created after the switch runs B's code
 * on B. Every workflow is PINNED (workers/worker-versioning.ts), the webhook deliveries of the
 * payouts' events too. The API runs in this process, with no worker of its own.
 */

const BUILD_A = 'build-a';
const BUILD_B = 'build-b';
const { VersioningBehavior } = proto.api.enums.v1;

let h: Harness;
let rx: TestReceiver;
let nextBuild: NextBuildBundle | undefined;
let nextBuildBundle: string;
let deployment: string;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  const { serverVersion } = await h.temporal.connection.workflowService.getSystemInfo({});
  await requireWorkerDeployments(serverVersion ?? '');
  deployment = `payments-${h.taskQueue}`;
  rx = await startTestReceiver();
  nextBuild = await bundleNextBuild();
  nextBuildBundle = nextBuild.path;
});
afterAll(async () => {
  await killAllWorkers();
  await rx?.close();
  await h?.close();
  nextBuild?.remove();
});

/** The real worker process, registering `buildId` of this file's deployment; B runs the next build's bundle. */
function startBuild(buildId: string): Promise<WorkerChild> {
  return startWorkerChild({
    taskQueue: h.taskQueue,
    env: {
      WORKER_DEPLOYMENT_NAME: deployment,
      WORKER_BUILD_ID: buildId,
      ...(buildId === BUILD_B ? { WORKFLOW_BUNDLE_PATH: nextBuildBundle } : {}),
    },
  });
}

/** Both environments' queues, their webhook delivery queues and the legacy one, workflow and activity tasks: what `set-current-version` checks. */
const allQueues = () =>
  [h.taskQueue, `${h.taskQueue}-live`, `${h.taskQueue}-sandbox`, `${h.taskQueue}-live-webhooks`, `${h.taskQueue}-sandbox-webhooks`]
    .flatMap((q) => [`${q} activity`, `${q} workflow`])
    .sort();

async function registered(buildId: string): Promise<void> {
  await until(`${buildId} polls every task queue of the deployment`, async () => (await versionTaskQueues(deployment, buildId)).join() === allQueues().join(), 300, 100);
}

function createPayout(merchant: TestMerchant, amount: number, metadata: Record<string, unknown> = {}) {
  return h.request('sandbox', 'POST', '/v1/payouts', {
    key: merchant.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: { amount, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: `wv-${amount}`, metadata },
  });
}

async function history(id: string) {
  return (await h.temporal.client.workflow.getHandle(id).fetchHistory()).events ?? [];
}

type HistoryEvent = Awaited<ReturnType<typeof history>>[number];

/** Every completed workflow task: who completed it, on which build, with which behavior, when. */
function completedTasks(events: HistoryEvent[]) {
  return events
    .filter((e) => e.workflowTaskCompletedEventAttributes)
    .map((e) => {
      const a = e.workflowTaskCompletedEventAttributes!;
      return { identity: a.identity, deployment: a.deploymentVersion?.deploymentName, buildId: a.deploymentVersion?.buildId, behavior: a.versioningBehavior, atMs: eventMs(e) };
    });
}

/** When the event happened, to the second. */
const eventMs = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000;

/** The decoded summaries of the timers the run started, in order. */
async function timerSummaries(events: HistoryEvent[]): Promise<unknown[]> {
  const timers = events.filter((e) => e.timerStartedEventAttributes);
  return Promise.all(timers.map((e) => (e.userMetadata?.summary ? decodedJson(e.userMetadata.summary) : null)));
}

async function versioningInfo(id: string) {
  const info = (await h.temporal.client.workflow.getHandle(id).describe()).raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, buildId: info?.deploymentVersion?.buildId, deployment: info?.deploymentVersion?.deploymentName };
}

/** Open runs pinned to (or last run on) a version: the visibility query docs/testing.md gives for draining. */
async function runningOn(buildId: string): Promise<string[]> {
  const ids: string[] = [];
  const query = `TemporalWorkerDeploymentVersion = '${deployment}:${buildId}' AND ExecutionStatus = 'Running'`;
  for await (const w of h.temporal.client.workflow.list({ query })) ids.push(w.workflowId);
  return ids.sort();
}

test('a payout pinned to build A finishes on A after B is ramped and made current; a new payout runs B', async () => {
  const merchant = await h.merchant();
  await fundMerchant(h, merchant.id, 5_000_000);
  const endpoint = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: merchant.testKey, body: { url: `${rx.url}/${merchant.id}` } });
  expect(endpoint.status).toBe(201);

  // Build A registers its version and is made current (until then a versioned worker gets no task).
  const a = await startBuild(BUILD_A);
  await registered(BUILD_A);
  await deploymentCli('set-current-version', '--deployment-name', deployment, '--build-id', BUILD_A, '--yes');
  expect(await describeDeployment(deployment)).toMatchObject({ current: BUILD_A, ramping: null });

  // A payout held for review: a long-running payment, waiting on A for an operator's decision.
  const held = await createPayout(merchant, 40_000, { sandbox_outcome: 'held_for_review' });
  expect([held.status, held.json?.status]).toEqual([200, 'held_for_review']);
  const heldId: string = held.json.id;
  const heldHandle = h.temporal.client.workflow.getHandle(heldId);
  await until(`${heldId} waits for review`, async () => {
    const timer = await heldHandle.query<{ summary: string } | null>('nextTimer').catch(() => null);
    return timer?.summary.startsWith('review timeout') ?? false;
  });
  expect(await versioningInfo(heldId)).toEqual({ behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, buildId: BUILD_A, deployment });

  // Build B starts, is ramped to a quarter of new runs, then made current.
  const b = await startBuild(BUILD_B);
  await registered(BUILD_B);
  await deploymentCli('set-ramping-version', '--deployment-name', deployment, '--build-id', BUILD_B, '--percentage', '25', '--yes');
  expect(await describeDeployment(deployment)).toMatchObject({ current: BUILD_A, ramping: BUILD_B, rampingPercentage: 25 });
  await deploymentCli('set-current-version', '--deployment-name', deployment, '--build-id', BUILD_B, '--yes');
  const switchedAtMs = Date.now();
  const routing = await describeDeployment(deployment);
  expect(routing).toMatchObject({ current: BUILD_B, ramping: null });
  // A no longer takes new runs; its pinned runs keep it draining until they end.
  expect(routing.drainage[BUILD_A]).toBe('draining');
  await until('the held payout shows as running on build A', async () => (await runningOn(BUILD_A)).includes(heldId));

  // The decision reaches the pinned run on A, which finishes the payout there.
  const approved = JSON.parse(await decidePayout(h.orm, h.temporal, heldId, 'approve', 'approved after the switch to build B', 30_000, 'test:versioning'));
  expect(approved).toMatchObject({ id: heldId, status: 'pending' });
  expect(await heldHandle.result()).toMatchObject({ id: heldId, status: 'succeeded' });
  const heldEvents = await history(heldId);
  const heldTasks = completedTasks(heldEvents);
  // Event times compared to the second: anything from the switch's second on counts as after it.
  const switchedAtSecondMs = Math.floor(switchedAtMs / 1000) * 1000;
  expect(heldTasks.filter((t) => t.atMs >= switchedAtSecondMs).length).toBeGreaterThan(0);
  expect(new Set(heldTasks.map((t) => `${t.identity} ${t.deployment} ${t.buildId} ${t.behavior}`))).toEqual(
    new Set([`${a.identity} ${deployment} ${BUILD_A} ${VersioningBehavior.VERSIONING_BEHAVIOR_PINNED}`]),
  );
  expect(heldEvents.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
  // Its activities too. The approval's transition, with its audit row in the same transaction
  // (issue 31), is a local activity: a marker recorded by one of A's workflow tasks (all on A, above).
  // Any regular activity after the switch ran on A's process as well.
  const afterSwitch = heldEvents.filter((e) => eventMs(e) >= switchedAtSecondMs);
  expect(afterSwitch.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length).toBeGreaterThan(0);
  const heldActivities = afterSwitch.filter((e) => e.activityTaskStartedEventAttributes);
  expect(heldActivities.filter((e) => e.activityTaskStartedEventAttributes!.identity !== a.identity)).toEqual([]);
  expect(await timerSummaries(heldEvents)).not.toContain(NEXT_BUILD_TIMER);
  expect(await versioningInfo(heldId)).toEqual({ behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, buildId: BUILD_A, deployment });

  // A payout created now starts on B and runs B's code (its first timer), on B's process only.
  const fresh = await createPayout(merchant, 30_000);
  expect([fresh.status, fresh.json?.status]).toEqual([200, 'pending']);
  const freshId: string = fresh.json.id;
  expect(await h.temporal.client.workflow.getHandle(freshId).result()).toMatchObject({ id: freshId, status: 'succeeded' });
  const freshEvents = await history(freshId);
  expect((await timerSummaries(freshEvents))[0]).toBe(NEXT_BUILD_TIMER);
  expect(new Set(completedTasks(freshEvents).map((t) => `${t.identity} ${t.buildId}`))).toEqual(new Set([`${b.identity} ${BUILD_B}`]));
  expect(await versioningInfo(freshId)).toEqual({ behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, buildId: BUILD_B, deployment });

  // Webhook deliveries, one per payout event, are pinned too: `payout.held_for_review` to A (current
  // when it was sent), the four events after the switch to B.
  await until('a delivery of every payout event', async () => (await deliveryIds(merchant.id)).length >= 5);
  const deliveries = await deliveryIds(merchant.id);
  expect(deliveries).toHaveLength(5);
  await rx.waitFor((ds) => ds.filter((d) => d.path.includes(merchant.id)).length >= deliveries.length, 30_000);
  const infos = await Promise.all(deliveries.map((id) => h.temporal.client.workflow.getHandle(id).result().then(() => versioningInfo(id))));
  expect(infos.map((i) => i.behavior)).toEqual(deliveries.map(() => VersioningBehavior.VERSIONING_BEHAVIOR_PINNED));
  expect(infos.map((i) => i.buildId).sort()).toEqual([BUILD_A, BUILD_B, BUILD_B, BUILD_B, BUILD_B]);

  // Drained: nothing runs on A any more, so its workers can stop (they drain and exit 0).
  await until('no run left on build A', async () => (await runningOn(BUILD_A)).length === 0);
  await a.stop();
  expect(await a.exited).toEqual({ code: 0, signal: null });
  await b.stop();
  expect(await b.exited).toEqual({ code: 0, signal: null });
});

/** The merchant's webhook deliveries (workflow id = delivery id). */
async function deliveryIds(merchantId: string): Promise<string[]> {
  const rows = await h.orm.em.getConnection().execute<{ id: string }[]>(`select id from webhook_deliveries where merchant_id = ? and workflow_started_at is not null`, [merchantId]);
  return rows.map((r) => r.id).sort();
}
