import { temporal as proto } from '@temporalio/proto';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import type { TemporalHandle } from './connection';
import { taskQueueFor, webhookTaskQueueFor } from './task-queues';

/**
 * Workers polling each environment's task queues (`<base>-sandbox`, `<base>-live`, and their webhook
 * delivery queues `<base>-<environment>-webhooks`), for workflow tasks and for activity tasks, by
 * Worker Deployment build: the `payments_task_queue_pollers` gauge. A poller counts when the server
 * saw it in the last minute (pollers long-poll for about a minute); /health counts them with the same
 * function. One DescribeTaskQueue per queue and task type, all at once, within one deadline.
 */

/** A poller the server saw this recently is alive. */
export const POLLER_FRESH_MS = 60_000;

export type PolledTaskType = 'workflow' | 'activity';

/** The pollers of one Worker Deployment build on a queue (issue 31, finding 8); `buildId` '' for unversioned workers. */
export interface BuildPollers {
  deploymentName: string;
  buildId: string;
  /** Seen in the last POLLER_FRESH_MS; 0 for a build the server still remembers but has not seen poll since. */
  pollers: number;
}

export interface QueuePollers {
  environment: Environment;
  taskQueue: string;
  taskType: PolledTaskType;
  /** Every build's pollers together. */
  pollers: number;
  /** By build: each build the server lists for the queue (unversioned workers under buildId ''). */
  builds: BuildPollers[];
}

type Timestamp = { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined;
const timestampMs = (ts: Timestamp) =>
  ts?.seconds == null ? 0 : (typeof ts.seconds === 'number' ? ts.seconds : ts.seconds.toNumber()) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);

const TASK_QUEUE_TYPE: Record<PolledTaskType, proto.api.enums.v1.TaskQueueType> = {
  workflow: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  activity: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
};

/** How many workers polled `taskQueue` for `taskType` tasks in the last POLLER_FRESH_MS (one DescribeTaskQueue). */
export async function freshPollerCount(temporal: TemporalHandle, taskQueue: string, taskType: PolledTaskType): Promise<number> {
  return (await pollersByBuild(temporal, taskQueue, taskType)).reduce((sum, b) => sum + b.pollers, 0);
}

/**
 * The pollers of `taskQueue` for `taskType` tasks by Worker Deployment build (one DescribeTaskQueue):
 * a versioned worker reports its deployment name and build id with each poll (workers/worker-versioning.ts).
 * A build the server still lists but has not seen poll for POLLER_FRESH_MS counts 0 (a retired build).
 */
export async function pollersByBuild(temporal: TemporalHandle, taskQueue: string, taskType: PolledTaskType): Promise<BuildPollers[]> {
  const { pollers } = await temporal.connection.workflowService.describeTaskQueue({
    namespace: temporal.namespace,
    taskQueue: { name: taskQueue, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TASK_QUEUE_TYPE[taskType],
  });
  const now = Date.now();
  const builds = new Map<string, BuildPollers>();
  for (const p of pollers ?? []) {
    const versioned = p.deploymentOptions?.workerVersioningMode === proto.api.enums.v1.WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED;
    const deploymentName = versioned ? (p.deploymentOptions?.deploymentName ?? '') : '';
    const buildId = versioned ? (p.deploymentOptions?.buildId ?? '') : '';
    const key = `${deploymentName}:${buildId}`;
    const build = builds.get(key) ?? { deploymentName, buildId, pollers: 0 };
    if (now - timestampMs(p.lastAccessTime) <= POLLER_FRESH_MS) build.pollers++;
    builds.set(key, build);
  }
  return [...builds.values()].sort((a, b) => a.deploymentName.localeCompare(b.deploymentName) || a.buildId.localeCompare(b.buildId));
}

export async function countQueuePollers(temporal: TemporalHandle, taskQueueBase: string, deadlineMs: number): Promise<QueuePollers[]> {
  const cells = ENVIRONMENTS.flatMap((environment) =>
    [taskQueueFor(taskQueueBase, environment), webhookTaskQueueFor(taskQueueBase, environment)].flatMap((taskQueue) =>
      (['workflow', 'activity'] as const).map((taskType) => ({ environment, taskType, taskQueue })),
    ),
  );
  // Every call settles before this does (none is left running), then the first failure is thrown.
  const results = await temporal.connection.withDeadline(Date.now() + deadlineMs, () =>
    Promise.allSettled(
      cells.map(async (cell): Promise<QueuePollers> => {
        const builds = await pollersByBuild(temporal, cell.taskQueue, cell.taskType);
        return { ...cell, pollers: builds.reduce((sum, b) => sum + b.pollers, 0), builds };
      }),
    ),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<QueuePollers>).value);
}
