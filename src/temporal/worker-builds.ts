import { temporal as proto } from '@temporalio/proto';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import type { TemporalHandle } from './connection';
import { countQueuePollers, type PolledTaskType, type QueuePollers } from './task-queue-pollers';
import { taskQueueFor, webhookTaskQueueFor } from './task-queues';

/**
 * Worker Versioning as the queues of this deployment see it (issue 31, finding 8): which builds poll
 * each queue, and how many open runs each build holds there. Every workflow of a versioned worker is
 * pinned to the build it started on (workers/worker-versioning.ts): a run pinned to a build whose
 * workers are gone stalls, whatever other builds poll the queue. This is what the
 * `payments_task_queue_pollers{build_id}` and `payments_open_runs_by_build` gauges, the
 * PaymentsPinnedBuildWithoutPollers alert and `payments stuck` read.
 *
 * - Pollers: one DescribeTaskQueue per queue and task type (task-queue-pollers.ts), by build.
 * - Builds: the Worker Deployments seen polling these queues, plus `deploymentNames` (the configured
 *   WORKER_DEPLOYMENT_NAME), each described once: its current and ramping build and every version
 *   that may hold pinned runs (current, ramping or draining; an inactive, created or drained version
 *   holds none).
 * - Runs: one visibility count per such version and queue (`TemporalWorkerDeploymentVersion`, running,
 *   pinned), and one per queue of the running workflows pinned to no build (an unversioned worker's,
 *   or auto-upgrade ones). Visibility groups counts by ExecutionStatus only, hence one query each.
 */

/** A build's open runs on one queue; `buildId` '' for the runs pinned to no build. */
export interface BuildRuns {
  environment: Environment;
  taskQueue: string;
  deploymentName: string;
  buildId: string;
  runs: number;
}

export interface DeploymentRouting {
  deploymentName: string;
  current: string | null;
  ramping: string | null;
}

export interface BuildCoverage {
  pollers: QueuePollers[];
  runs: BuildRuns[];
  deployments: DeploymentRouting[];
}

/** A build holding open pinned runs on a queue where it has no poller of some task type: those runs cannot move. */
export interface UnpolledBuild {
  environment: Environment;
  taskQueue: string;
  deploymentName: string;
  buildId: string;
  runs: number;
  /** The task types (workflow, activity) no worker of the build polls on the queue. */
  missing: PolledTaskType[];
  /** The deployment's current build (where `payments move-build` would take the runs), null when none. */
  current: string | null;
}

const { WorkerDeploymentVersionStatus } = proto.api.enums.v1;
/** Versions that may hold pinned runs (an older server reports no status: counted too). */
const MAY_HOLD_RUNS = new Set<number>([
  WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_UNSPECIFIED,
  WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT,
  WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING,
  WorkerDeploymentVersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING,
]);

/** The gRPC status code of an error, raw (workflowService) or wrapped by the client (ServiceError's cause). */
const grpcCode = (error: unknown): number | undefined => (error as { code?: number }).code ?? (error as { cause?: { code?: number } }).cause?.code;

/** A string literal of a list query; a name or build id with a quote or backslash cannot be queried (the config refuses none, the server might). */
export function queryLiteral(value: string): string {
  if (/['"\\]/.test(value)) throw new Error(`${JSON.stringify(value)} cannot be used in a list query (it has a quote or a backslash)`);
  return `'${value}'`;
}

/** `deployment:build`, as the TemporalWorkerDeploymentVersion search attribute holds a version. */
export const versionKey = (deploymentName: string, buildId: string) => `${deploymentName}:${buildId}`;

/** The visibility query of the running workflows pinned to a build (on `taskQueue`, when given). */
export function pinnedRunsQuery(deploymentName: string, buildId: string, taskQueue?: string): string {
  const queue = taskQueue === undefined ? '' : ` AND TaskQueue = ${queryLiteral(taskQueue)}`;
  return `TemporalWorkerDeploymentVersion = ${queryLiteral(versionKey(deploymentName, buildId))} AND TemporalWorkflowVersioningBehavior = 'Pinned' AND ExecutionStatus = 'Running'${queue}`;
}

/** The queues the sampler watches, with their environment: each environment's payments and webhook delivery queues. */
export function watchedQueues(taskQueueBase: string): Array<{ environment: Environment; taskQueue: string }> {
  return ENVIRONMENTS.flatMap((environment) => [taskQueueFor(taskQueueBase, environment), webhookTaskQueueFor(taskQueueBase, environment)].map((taskQueue) => ({ environment, taskQueue })));
}

async function describeDeployment(temporal: TemporalHandle, deploymentName: string) {
  try {
    const { workerDeploymentInfo } = await temporal.connection.workflowService.describeWorkerDeployment({ namespace: temporal.namespace, deploymentName });
    return workerDeploymentInfo ?? null;
  } catch (error) {
    // A name a poller reported a moment ago may be gone (deleted); nothing to count for it.
    if (grpcCode(error) === 5 /* NOT_FOUND */) return null;
    throw error;
  }
}

/** Every call settles before this does (none is left running), then the first failure is thrown. */
async function allOrFirstFailure<T>(work: Array<Promise<T>>): Promise<T[]> {
  const results = await Promise.allSettled(work);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

export async function readBuildCoverage(temporal: TemporalHandle, taskQueueBase: string, deadlineMs: number, deploymentNames: readonly string[] = []): Promise<BuildCoverage> {
  const deadline = Date.now() + deadlineMs;
  const pollers = await countQueuePollers(temporal, taskQueueBase, deadlineMs);
  const names = new Set(deploymentNames.filter((n) => n !== ''));
  for (const cell of pollers) for (const b of cell.builds) if (b.deploymentName) names.add(b.deploymentName);
  const queues = watchedQueues(taskQueueBase);
  return temporal.connection.withDeadline(deadline, async () => {
    const described = await allOrFirstFailure([...names].sort().map((name) => describeDeployment(temporal, name).then((info) => ({ name, info }))));
    const deployments: DeploymentRouting[] = [];
    const counts: Array<Promise<BuildRuns>> = [];
    const count = async (query: string) => Number((await temporal.client.workflow.count(query)).count);
    for (const { name, info } of described) {
      if (!info) continue;
      const routing = info.routingConfig;
      deployments.push({ deploymentName: name, current: routing?.currentDeploymentVersion?.buildId || null, ramping: routing?.rampingDeploymentVersion?.buildId || null });
      for (const version of info.versionSummaries ?? []) {
        const buildId = version.deploymentVersion?.buildId;
        if (!buildId || !MAY_HOLD_RUNS.has(version.status ?? 0)) continue;
        for (const { environment, taskQueue } of queues) {
          counts.push(count(pinnedRunsQuery(name, buildId, taskQueue)).then((runs) => ({ environment, taskQueue, deploymentName: name, buildId, runs })));
        }
      }
    }
    for (const { environment, taskQueue } of queues) {
      const running = `ExecutionStatus = 'Running' AND TaskQueue = ${queryLiteral(taskQueue)}`;
      const unpinned = `${running} AND (TemporalWorkflowVersioningBehavior IS NULL OR TemporalWorkflowVersioningBehavior != 'Pinned')`;
      // A server from before Worker Versioning has no such attribute (INVALID_ARGUMENT): nothing is pinned there.
      const runs = count(unpinned).catch((error: unknown) => {
        if (grpcCode(error) === 3 && described.length === 0) return count(running);
        throw error;
      });
      counts.push(runs.then((n) => ({ environment, taskQueue, deploymentName: '', buildId: '', runs: n })));
    }
    return { pollers, runs: await allOrFirstFailure(counts), deployments };
  });
}

/** The builds with open pinned runs on a queue and no poller there of some task type (fresh: POLLER_FRESH_MS). */
export function unpolledBuilds(coverage: BuildCoverage): UnpolledBuild[] {
  const out: UnpolledBuild[] = [];
  for (const r of coverage.runs) {
    if (r.buildId === '' || r.runs === 0) continue;
    const missing = (['workflow', 'activity'] as const).filter((taskType) => {
      const cell = coverage.pollers.find((p) => p.taskQueue === r.taskQueue && p.taskType === taskType);
      return (cell?.builds.find((b) => b.deploymentName === r.deploymentName && b.buildId === r.buildId)?.pollers ?? 0) === 0;
    });
    if (missing.length === 0) continue;
    const current = coverage.deployments.find((d) => d.deploymentName === r.deploymentName)?.current ?? null;
    out.push({ ...r, missing, current });
  }
  return out;
}

/** A queue of this deployment where `buildId` has no fresh poller of some task type. */
export interface QueueWithoutBuild {
  taskQueue: string;
  missing: PolledTaskType[];
}

/**
 * The queues (watchedQueues of `taskQueueBase`) where build `buildId` of `deploymentName` has no
 * poller seen in the last POLLER_FRESH_MS, for workflow or activity tasks (issue 43: `payments
 * move-build` moves runs only to a build whose workers poll their queues; a run pinned to a build
 * nobody polls stalls, as on the build it left). Empty when the build polls every queue.
 */
export function queuesWithoutBuild(coverage: Pick<BuildCoverage, 'pollers'>, taskQueueBase: string, deploymentName: string, buildId: string): QueueWithoutBuild[] {
  const queues = [...new Set(watchedQueues(taskQueueBase).map((q) => q.taskQueue))];
  const out: QueueWithoutBuild[] = [];
  for (const taskQueue of queues) {
    const missing = (['workflow', 'activity'] as const).filter((taskType) => {
      const cell = coverage.pollers.find((p) => p.taskQueue === taskQueue && p.taskType === taskType);
      return (cell?.builds.find((b) => b.deploymentName === deploymentName && b.buildId === buildId)?.pollers ?? 0) === 0;
    });
    if (missing.length > 0) out.push({ taskQueue, missing });
  }
  return out;
}
