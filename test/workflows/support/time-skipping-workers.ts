import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type LogLevel } from '@temporalio/worker';
import { randomBase62 } from '../../../src/support/new-id';
import { deploymentTaskQueues, webhookTaskQueueFor } from '../../../src/temporal/task-queues';
import { installRuntime, workflowBundle } from '../../../workers/workflow-bundle';
import { WorkerGroup } from '../../../workers/worker-group';
import { declareSearchAttributes } from './charge-env';
import { auditLog } from './fake-audit';
import { createTimeSkippingEnv } from './time-skipping-env';

export interface TimeSkippingWorkers {
  env: TestWorkflowEnvironment;
  /** The base queue: workers poll its sandbox and live queues, as in production. */
  taskQueue: string;
  /** Stops the workers and the test server. */
  close(): Promise<void>;
}

/** What the starters below run on the test server: a Worker, or the sandbox and live WorkerGroup. */
interface Runnable {
  run(): Promise<void>;
  shutdown(): void;
}

/**
 * A time-skipping test server with the search attributes declared, a fresh base queue
 * (`<prefix>-<random>`), and what `createWorker` makes for them running; the server is torn down
 * again when `createWorker` throws.
 */
async function onTestServer(prefix: string, createWorker: (env: TestWorkflowEnvironment, taskQueue: string) => Promise<Runnable>): Promise<TimeSkippingWorkers> {
  installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');
  const env = await createTimeSkippingEnv();
  const taskQueue = `${prefix}-${randomBase62(8)}`;
  let worker: Runnable;
  try {
    await declareSearchAttributes(env); // starts set MerchantId and Environment
    worker = await createWorker(env, taskQueue);
  } catch (error) {
    await env.teardown();
    throw error;
  }
  const running = worker.run();
  return {
    env,
    taskQueue,
    async close() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}

/**
 * A time-skipping test server with the search attributes declared, and the real workflow bundle
 * running on the sandbox and live queues of a fresh base queue (`<prefix>-<random>`) with `activities`.
 */
export function startTimeSkippingWorkers(prefix: string, activities: object): Promise<TimeSkippingWorkers> {
  return onTestServer(prefix, async (env, taskQueue) => {
    const workerOn = async (queue: string) => Worker.create({ connection: env.nativeConnection, taskQueue: queue, workflowBundle: await workflowBundle(), activities: { ...auditLog.activities, ...activities } });
    const queues = deploymentTaskQueues(taskQueue);
    return new WorkerGroup({ sandbox: await workerOn(queues.sandbox), live: await workerOn(queues.live) });
  });
}

/**
 * A time-skipping test server with the search attributes declared, and the real workflow bundle
 * running on the sandbox delivery queue (`<base>-sandbox-webhooks`, where webhook deliveries and
 * notifications run) of a fresh base queue, with `activities`.
 */
export function startDeliveryQueueWorker(prefix: string, activities: object): Promise<TimeSkippingWorkers> {
  return onTestServer(prefix, async (env, taskQueue) =>
    Worker.create({ connection: env.nativeConnection, taskQueue: webhookTaskQueueFor(taskQueue, 'sandbox'), workflowBundle: await workflowBundle(), activities }),
  );
}
