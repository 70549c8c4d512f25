import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { IllegalStateError } from '@temporalio/common';
import { createActivities } from '../activities';
import type { WebhookConfig } from '../src/config';
import type { Orm } from '../src/persistence/orm';
import type { SecretBox } from '../src/support/secret-box';
import { policyAgents } from '../src/webhooks/policy-agents';
import { workerCapacity } from '../src/runtime/worker-capacity';

export const WORKFLOWS_PATH = require.resolve('../workflows');

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
let runtimeInstalled = false;

/**
 * SDK log level for this process (TEMPORAL_LOG_LEVEL, default WARN) and, when given, the SDK's
 * Prometheus exporter address (worker task latencies, workflow and activity outcomes, and the
 * payments_charge_transitions counter); settable once, before any worker.
 */
export function installRuntime(level: LogLevel = (process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'WARN', metricsAddress?: string): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({
      logger: new DefaultLogger(level),
      ...(metricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } } : {}),
    });
  } catch (error) {
    // Already created (e.g. by a dev server or test environment in this process): keep that runtime.
    if (!(error instanceof IllegalStateError)) throw error;
  }
}

/** Bundles the workflow code once per process (webpack takes seconds; tests reuse it). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never });
  return bundle;
}

export interface PaymentsWorkerOptions {
  orm: Orm;
  address: string;
  namespace: string;
  taskQueue: string;
  identity?: string;
  secretBox: SecretBox;
  webhooks: WebhookConfig;
  /** Slot overrides (WORKER_LOCAL_ACTIVITY_SLOTS, WORKER_ACTIVITY_SLOTS); the pool size comes from `orm`. */
  slots?: { localActivitySlots?: number; activitySlots?: number };
}

/** The ORM's pool size, which bounds how many activities may run at once. */
function poolMaxOf(orm: Orm): number {
  return orm.config.get('pool')?.max ?? 10;
}

/** The payments worker: every workflow and activity of the product on one task queue. */
export async function createPaymentsWorker(options: PaymentsWorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  installRuntime();
  const capacity = workerCapacity(poolMaxOf(options.orm), options.slots);
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities({
      orm: options.orm,
      webhooks: { secretBox: options.secretBox, agents: policyAgents(options.webhooks), disableRule: options.webhooks.disableRule },
    }),
    maxConcurrentLocalActivityExecutions: capacity.localActivitySlots,
    maxConcurrentActivityTaskExecutions: capacity.activitySlots,
    ...(options.identity ? { identity: options.identity } : {}),
  });
  return { worker, connection };
}
