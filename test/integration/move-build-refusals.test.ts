import { NativeConnection, Worker } from '@temporalio/worker';
import { workflowBundle } from '../../workers/workflow-bundle';
import { startHarness, type Harness } from '../support/harness';
import { execCli, cliEnv } from '../support/run-cli';
import { until } from '../support/webhook-fixtures';
import { deploymentCli, requireWorkerDeployments, versionTaskQueues } from '../support/worker-deployment-cli';

/**
 * `payments move-build` (issue 43, Medium: it replayed against whatever code the CLI had, never
 * comparing it with --to-build or checking that the target build polls the queue), on a real dev
 * server: a build made current whose workers poll none of this deployment's queues (they poll
 * another queue, then stop) takes no run, and a CLI of another build (or none) moves nothing. Both
 * refusals come before any run is listed, replayed or moved (exit 1, no audit row).
 */

let h: Harness;
let deployment: string;
const BUILD = 'build-x';

beforeAll(async () => {
  h = await startHarness({ worker: false });
  const { serverVersion } = await h.temporal.connection.workflowService.getSystemInfo({});
  await requireWorkerDeployments(serverVersion ?? '');
  deployment = `payments-${h.taskQueue}`;
  // The version exists once a worker of it polled: one on a queue that is not this deployment's, stopped once seen.
  const connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  try {
    const worker = await Worker.create({
      connection,
      namespace: 'default',
      taskQueue: `${h.taskQueue}-elsewhere`,
      workflowBundle: await workflowBundle(),
      workerDeploymentOptions: { useWorkerVersioning: true, version: { deploymentName: deployment, buildId: BUILD }, defaultVersioningBehavior: 'PINNED' },
    });
    await worker.runUntil(until(`${BUILD} seen polling`, async () => (await versionTaskQueues(deployment, BUILD)).length > 0, 30_000));
  } finally {
    await connection.close();
  }
  await deploymentCli('set-current-version', '--deployment-name', deployment, '--build-id', BUILD, '--ignore-missing-task-queues', '--yes');
});
afterAll(async () => {
  await h?.close();
});

/** The CLI of build `buildId` of this deployment (none: a CLI without WORKER_BUILD_ID). */
const cliOf = (buildId: string | null, ...args: string[]) =>
  execCli(args, cliEnv(h.taskQueue, buildId === null ? {} : { WORKER_DEPLOYMENT_NAME: deployment, WORKER_BUILD_ID: buildId }));

const moveArgs = ['payments', 'move-build', '--to-build', BUILD, '--reason', 'retire the old build', '--query', "WorkflowId = 'po_none'"];
const auditRows = async () => (await h.orm.em.fork().getConnection().execute<Array<{ n: string }>>(`select count(*)::text as n from operator_audit where action = 'payment.move_build' and reason = 'retire the old build'`))[0]!.n;

test("refused unless the CLI is the target build: it replays against its own code", async () => {
  const none = await cliOf(null, ...moveArgs);
  expect({ code: none.code, stderr: none.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/this CLI has no WORKER_BUILD_ID.*build build-x's image.*nothing was moved/) });
  const other = await cliOf('build-w', ...moveArgs);
  expect({ code: other.code, stderr: other.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/this CLI is build build-w \(WORKER_BUILD_ID\), not --to-build build-x: .*nothing was moved/) });
  expect(await auditRows()).toBe('0');
});

test('refused while the target build, current, has no worker polling the deployment’s queues', async () => {
  const r = await cliOf(BUILD, ...moveArgs);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(new RegExp(`build build-x of deployment ${deployment} has no worker polling ${h.taskQueue}-sandbox \\(workflow and activity tasks\\).*a run moved to it would stall there.*nothing was moved`));
  // Every queue of the deployment is named, each environment's payments and webhook queues.
  for (const q of ['sandbox', 'live', 'sandbox-webhooks', 'live-webhooks']) expect(r.stderr).toContain(`${h.taskQueue}-${q} (workflow and activity tasks)`);
  expect(await auditRows()).toBe('0');
});
