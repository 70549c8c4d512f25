import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { installRuntime, workflowBundle } from './workflow-bundle';
import type { PayloadCodec } from '@temporalio/common';
import { codecDataConverter } from '../src/temporal/payload-codec';
import { createActivities } from '../activities';
import type { WebhookConfig } from '../src/config';
import type { Orm } from '../src/persistence/orm';
import type { SecretBox } from '../src/support/secret-box';
import { policyAgents } from '../src/webhooks/policy-agents';
import type { Dispatcher } from 'undici';
import { workerCapacity, type DeliveryBudget, type SlotBudget, type WorkerCapacity } from '../src/runtime/worker-capacity';
import type { SlotSettings } from '../src/runtime/worker-settings';
import { deploymentTaskQueues, webhookTaskQueueFor, type TaskQueueRole } from '../src/temporal/task-queues';
import type { Environment } from '../src/domain/environment';
import { WorkerGroup, type WorkerRole } from './worker-group';
import { Client } from '@temporalio/client';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { activityTroubleInterceptor } from '../src/runtime/activity-trouble';
import { auditIdentityInterceptor } from '../src/runtime/audit-identity';
import { activityAttentionAttempts } from '../src/domain/charge-attention';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { workerVersioningOptions } from './worker-versioning';
import type { NotificationConfig } from '../src/notifications/notification-config';
import type { PartnerRail } from '../src/rail/partner-rail';
import type { RailRoutes } from '../src/domain/rail-routes';
import type { RetentionPlan } from '../src/domain/retention';


export interface PaymentsWorkerOptions {
  orm: Orm;
  address: string;
  namespace: string;
  taskQueue: string;
  identity?: string;
  secretBox: SecretBox;
  /** Encrypts workflow payloads (src/temporal/payload-codec.ts); clients must use the same keyring. */
  payloadCodec: PayloadCodec;
  webhooks: WebhookConfig;
  /**
   * Slot settings (WORKER_LOCAL_ACTIVITY_SLOTS, WORKER_ACTIVITY_SLOTS, WORKER_LIVE_SHARE,
   * WORKER_LEGACY_SLOTS, WORKER_ENVIRONMENTS); the pool size comes from `orm`.
   */
  slots?: SlotSettings;
  /** WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID: the version every Worker registers (workers/worker-versioning.ts); unset, unversioned. */
  deployment?: WorkerDeploymentVersion;
  /** Notification settings (SMTP_URL, SMS_PROVIDER_URL, …; src/notifications/notification-config.ts); unset: read from the environment. */
  notifications?: NotificationConfig;
  /** The live partner rail (PARTNER_* settings, src/rail/partner-config.ts); unset: live rail steps fail and wait (NeedsAttention). */
  rail?: PartnerRail;
  /** Which live partner takes what (RAIL_ROUTES): a live settlement batch goes to its currency's `bank` partner. */
  railRoutes?: RailRoutes;
  /** The retention job's windows, batch and pause (config.retention.plan, src/runtime/retention-settings.ts); unset: read from the environment. */
  retention?: RetentionPlan;
  /**
   * Wraps the activities before they are registered (the deterministic simulation's hooks,
   * src/simulation/activity-hooks.ts: a failure injected into an activity, a defect after one); unset: as built.
   */
  wrapActivities?: <T extends object>(activities: T) => T;
  /** The simulation's hook into outgoing webhook requests (src/simulation/send-hooks.ts): wraps each environment's agent. */
  wrapWebhookAgents?: (agents: Record<Environment, Dispatcher>) => Record<Environment, Dispatcher>;
  /**
   * false: no workflow cache, so no sticky task queues (every workflow task replays its history). The
   * simulation's worker runs so: Temporal's time-skipping test server never moves a task off a stopped
   * worker's sticky queue, so after a restart a cached workflow would wait forever. Default true.
   */
  workflowCache?: boolean;
  /**
   * The Workers to create, by role (default: one per queue of the deployment). The test harness starts
   * only the queues a file's workflows run on: each Worker starts a worker thread that loads the SDK and
   * the workflow bundle (about 0.3 CPU-s), paid by every test file.
   */
  roles?: readonly WorkerRole[];
}

/** The ORM's pool size, which bounds how many activities may run at once. */
function poolMaxOf(orm: Orm): number {
  return orm.config.get('pool')?.max ?? 10;
}

/**
 * The payments worker: one Worker per task queue of the deployment (src/temporal/task-queues.ts;
 * `taskQueue` is the base, TEMPORAL_TASK_QUEUE), each with its own slots and workflow cache
 * (src/runtime/worker-capacity.ts), on one connection and one set of activities. `client` is a
 * client on that same connection: the outbox relay starts deliveries through it with eager workflow
 * start, so the server hands each delivery's first workflow task straight back to this process
 * (the SDK allows eager start only on a Worker's own connection).
 */
export async function createPaymentsWorker(
  options: PaymentsWorkerOptions,
): Promise<{ worker: WorkerGroup; connection: NativeConnection; client: Client; capacity: WorkerCapacity }> {
  installRuntime();
  const capacity = workerCapacity(poolMaxOf(options.orm), options.slots);
  const connection = await NativeConnection.connect({ address: options.address });
  const queues = deploymentTaskQueues(options.taskQueue);
  const built = createActivities({
    orm: options.orm,
    webhooks: {
      secretBox: options.secretBox,
      agents: options.wrapWebhookAgents ? options.wrapWebhookAgents(policyAgents(options.webhooks)) : policyAgents(options.webhooks),
      disableRule: options.webhooks.disableRule,
      merchantConcurrency: options.webhooks.merchantConcurrency,
      dbLanes: capacity.webhookDbLanes,
    },
    notifications: options.notifications,
    rail: options.rail,
    retention: options.retention,
    ...(options.railRoutes ? { railRoutes: options.railRoutes } : {}),
  });
  const activities = options.wrapActivities ? options.wrapActivities(built) : built;
  // Activities failing past ACTIVITY_ATTENTION_ATTEMPTS flag their payment (src/runtime/activity-trouble.ts).
  const signals = new Client({ connection, namespace: options.namespace, dataConverter: codecDataConverter(options.payloadCodec) });
  const trouble = activityTroubleInterceptor(signals, activityAttentionAttempts(), (error) =>
    Runtime.instance().logger.warn('activity trouble signal not delivered', { error: error instanceof Error ? error.message : String(error) }),
  );
  // An audited update's row gets Temporal's identity of its sender (src/runtime/audit-identity.ts).
  const identity = auditIdentityInterceptor({
    client: signals,
    orm: options.orm,
    onError: (error) => Runtime.instance().logger.warn('audit row: the update sender identity not recorded', { error: error instanceof Error ? error.message : String(error) }),
  });
  const interceptors = [trouble, identity];
  const workers: Partial<Record<WorkerRole, Worker>> = {};
  const wanted = (role: WorkerRole) => !options.roles || options.roles.includes(role);
  for (const [role, budget] of Object.entries(capacity.queues) as Array<[TaskQueueRole, SlotBudget]>) {
    if (wanted(role)) workers[role] = await queueWorker(options, connection, queues[role], budget, activities, interceptors);
  }
  for (const [environment, budget] of Object.entries(capacity.deliveries) as Array<[Environment, DeliveryBudget]>) {
    const role = `${environment}-webhooks` as const;
    if (wanted(role)) workers[role] = await queueWorker(options, connection, webhookTaskQueueFor(options.taskQueue, environment), deliverySlots(budget), activities, interceptors);
  }
  return { worker: new WorkerGroup(workers), connection, client: signals, capacity };
}

/** A delivery Worker's slots: its attempts hold no pooled connection while they send (worker-capacity.ts). */
function deliverySlots(budget: DeliveryBudget): SlotBudget & { workflowTaskSlots: number } {
  return { localActivitySlots: budget.sendSlots, activitySlots: budget.sendSlots, cachedWorkflows: budget.cachedWorkflows, workflowTaskSlots: budget.workflowTaskSlots };
}

/** The SDK's default workflow task slots; fewer when the Worker's cache is smaller (the SDK requires it). */
const WORKFLOW_TASK_SLOTS = 40;

async function queueWorker(
  options: PaymentsWorkerOptions,
  connection: NativeConnection,
  taskQueue: string,
  budget: SlotBudget & { workflowTaskSlots?: number },
  activities: ReturnType<typeof createActivities>,
  activityInterceptors: ActivityInterceptorsFactory[],
): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue,
    dataConverter: codecDataConverter(options.payloadCodec),
    workflowBundle: await workflowBundle(),
    activities,
    interceptors: { activity: activityInterceptors },
    maxConcurrentLocalActivityExecutions: budget.localActivitySlots,
    maxConcurrentActivityTaskExecutions: budget.activitySlots,
    ...(options.workflowCache === false
      ? { maxCachedWorkflows: 0, maxConcurrentWorkflowTaskExecutions: budget.workflowTaskSlots ?? WORKFLOW_TASK_SLOTS }
      : { maxCachedWorkflows: budget.cachedWorkflows, maxConcurrentWorkflowTaskExecutions: Math.min(budget.workflowTaskSlots ?? WORKFLOW_TASK_SLOTS, budget.cachedWorkflows) }),
    ...(options.identity ? { identity: options.identity } : {}),
    ...workerVersioningOptions(options.deployment),
  });
}
