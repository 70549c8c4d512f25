import type { Environment } from '../domain/environment';

/**
 * The deployment's task queues, all named from TEMPORAL_TASK_QUEUE (the base, default `payments`):
 *
 * - `<base>-sandbox` and `<base>-live`: every workflow is started on the queue of its payment's
 *   environment, and its activities and timers stay there (nothing in workflows/ names a queue). Each
 *   is polled by its own Worker with its own slots (runtime/worker-capacity.ts), so a sandbox flood
 *   cannot take the slots, connections or workflow cache live needs.
 * - `<base>` (legacy): the single queue of releases before the split. Runs started there finish
 *   there; the worker keeps polling it (WORKER_LEGACY_SLOTS, default 1) until none is left.
 */
export type TaskQueueRole = Environment | 'legacy';

/** The queue every workflow of a payment in `environment` is started on. */
export function taskQueueFor(base: string, environment: Environment): string {
  return `${base}-${environment}`;
}

export function deploymentTaskQueues(base: string): Record<TaskQueueRole, string> {
  return { sandbox: taskQueueFor(base, 'sandbox'), live: taskQueueFor(base, 'live'), legacy: base };
}

/** Whether `queue` is one of this deployment's queues (a run of another deployment on the namespace is not). */
export function isDeploymentTaskQueue(base: string, queue: string | null | undefined): boolean {
  return queue != null && Object.values(deploymentTaskQueues(base)).includes(queue);
}
