import { ENVIRONMENTS, type Environment } from '../domain/environment';

/**
 * The deployment's task queues, all named from TEMPORAL_TASK_QUEUE (the base, default `payments`):
 *
 * - `<base>-sandbox` and `<base>-live`: every workflow is started on the queue of its payment's
 *   environment, and its activities and timers stay there (nothing in workflows/ names a queue). Each
 *   is polled by its own Worker with its own slots (runtime/worker-capacity.ts), so a sandbox flood
 *   cannot take the slots, connections or workflow cache live needs.
 * - `<base>` (legacy): the single queue of releases before the split. Runs started there finish
 *   there; the worker keeps polling it (WORKER_LEGACY_SLOTS, default 1) until none is left.
 * - `<base>-sandbox-webhooks` and `<base>-live-webhooks` (issue 19): webhook deliveries, on a Worker
 *   of their own per environment with hundreds of send slots (runtime/worker-capacity.ts), so charge
 *   timers firing in bursts never hold a delivery's workflow task and a slow receiver never holds a
 *   charge's slot. Deliveries started before issue 19 finish on their environment's queue.
 */
export type TaskQueueRole = Environment | 'legacy';

/** The queue every workflow of a payment in `environment` is started on. */
export function taskQueueFor(base: string, environment: Environment): string {
  return `${base}-${environment}`;
}

/** The queue a webhook delivery of `environment` is started on (issue 19). */
export function webhookTaskQueueFor(base: string, environment: Environment): string {
  return `${taskQueueFor(base, environment)}-webhooks`;
}

export function deploymentTaskQueues(base: string): Record<TaskQueueRole, string> {
  return { sandbox: taskQueueFor(base, 'sandbox'), live: taskQueueFor(base, 'live'), legacy: base };
}

/** Whether `queue` is one of this deployment's queues (a run of another deployment on the namespace is not). */
export function isDeploymentTaskQueue(base: string, queue: string | null | undefined): boolean {
  if (queue == null) return false;
  return Object.values(deploymentTaskQueues(base)).includes(queue) || ENVIRONMENTS.some((e) => webhookTaskQueueFor(base, e) === queue);
}
