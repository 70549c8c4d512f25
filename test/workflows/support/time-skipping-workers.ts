import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type LogLevel } from '@temporalio/worker';
import { randomBase62 } from '../../../src/support/new-id';
import { deploymentTaskQueues, webhookTaskQueueFor } from '../../../src/temporal/task-queues';
import { installRuntime, workflowBundle } from '../../../workers/create-worker';
import { WorkerGroup } from '../../../workers/worker-group';
import { testServerPath } from '../../support/binaries';
import { declareSearchAttributes } from './charge-env';
import { auditLog } from './fake-audit';

export interface TimeSkippingWorkers {
  env: TestWorkflowEnvironment;
  /** The base queue: workers poll its sandbox and live queues, as in production. */
  taskQueue: string;
  /** Stops the workers and the test server. */
  close(): Promise<void>;
}

/**
 * A time-skipping test server with the search attributes declared, and the real workflow bundle
 * running on the sandbox and live queues of a fresh base queue (`<prefix>-<random>`) with `activities`.
 */
export async function startTimeSkippingWorkers(prefix: string, activities: object): Promise<TimeSkippingWorkers> {
  installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
  const taskQueue = `${prefix}-${randomBase62(8)}`;
  let worker: WorkerGroup;
  try {
    await declareSearchAttributes(env);
    const workerOn = async (queue: string) => Worker.create({ connection: env.nativeConnection, taskQueue: queue, workflowBundle: await workflowBundle(), activities: { ...auditLog.activities, ...activities } });
    const queues = deploymentTaskQueues(taskQueue);
    worker = new WorkerGroup({ sandbox: await workerOn(queues.sandbox), live: await workerOn(queues.live) });
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
 * running on the sandbox delivery queue (`<base>-sandbox-webhooks`, where webhook deliveries and
 * notifications run) of a fresh base queue, with `activities`.
 */
export async function startDeliveryQueueWorker(prefix: string, activities: object): Promise<TimeSkippingWorkers> {
  installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
  const taskQueue = `${prefix}-${randomBase62(8)}`;
  let worker: Worker;
  try {
    await declareSearchAttributes(env); // the start sets MerchantId and Environment
    worker = await Worker.create({ connection: env.nativeConnection, taskQueue: webhookTaskQueueFor(taskQueue, 'sandbox'), workflowBundle: await workflowBundle(), activities });
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
