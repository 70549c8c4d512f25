import v8 from 'node:v8';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import type { SlotSettings } from './worker-settings';
import type { TaskQueueRole } from '../temporal/task-queues';

/**
 * How much work one worker process takes on at once, sized to its database pool so that no slot
 * ever waits for a connection it cannot get:
 *
 *   local activity slots + activity slots + WEBHOOK_DB_CONNECTIONS + RESERVED_CONNECTIONS <= pool size
 *
 * A charge step (local activity) holds one connection for its whole transaction; a payout, refund,
 * dispute or settlement step (activity) holds one too; a webhook attempt holds none of those: its two
 * short database steps (context read, result write) take one of WEBHOOK_DB_CONNECTIONS (default 4,
 * a semaphore in activities/webhooks.ts) and it holds nothing while the receiver answers, so its
 * delivery Worker has WEBHOOK_SEND_SLOTS (default 200) slots (DeliveryBudget below). The outbox
 * relay (three: two passes and its closed-run sweep), the notification relay, the four start relays
 * (charges, payouts, refunds, disputes), the charge reconciler and the partner breaker loop (one
 * each) have RESERVED_CONNECTIONS (10). The breaker loop's (issue 46) was a spare from when issue 34
 * made the idempotency retention loop a Temporal Schedule (its batches are activities, in activity
 * slots), kept so that the slot defaults and every pool size that worked still work.
 * Defaults (pool 30): 8 local activity slots, 8 activity slots, 4 webhook connections, 10 reserved.
 * Each can be set (WORKER_DB_POOL_MAX, WORKER_LOCAL_ACTIVITY_SLOTS, WORKER_ACTIVITY_SLOTS,
 * WEBHOOK_DB_CONNECTIONS, WEBHOOK_SEND_SLOTS); a combination that could exhaust the pool is refused
 * at start-up with the numbers in the message.
 *
 * Those totals are then split between the process's Workers, one per task queue
 * (temporal/task-queues.ts), each with a fixed-size budget of its own:
 *
 * - legacy (the single queue of earlier releases): WORKER_LEGACY_SLOTS of each kind (default 1; 0 =
 *   the legacy queue is not polled, once it is drained);
 * - live and sandbox: the rest, live taking WORKER_LIVE_SHARE of it (default 0.5, rounded up), each
 *   at least 1. WORKER_ENVIRONMENTS (default `sandbox,live`) limits the process to one environment,
 *   which then takes the whole rest (a live-only worker process for hard isolation).
 *
 * One pool, partitioned: every slot holds at most one connection and the budgets add up to the
 * pool, so sandbox's slots can never hold the connections live's slots need. Separate pools per
 * environment would guarantee no more and cost idle connections.
 *
 * The workflow cache is split the same way (each Worker's share of the slots), so that three Workers
 * in one process do not each size their cache to the whole heap as the SDK would.
 */
export interface SlotBudget {
  localActivitySlots: number;
  activitySlots: number;
  /** maxCachedWorkflows of this queue's Worker. */
  cachedWorkflows: number;
}

/**
 * The webhook delivery Worker of one environment (`<base>-<environment>-webhooks`, issue 19). Its
 * slots hold no database connection: an attempt takes one of the process's
 * `WorkerCapacity.webhookDbConnections` only to read its context and to record its result, and
 * holds none while the receiver answers. So the send concurrency is sized to the network and the
 * receivers (WEBHOOK_SEND_SLOTS), not to the pool.
 */
export interface DeliveryBudget {
  /** Activity slots and local activity slots, each (WEBHOOK_SEND_SLOTS). */
  sendSlots: number;
  cachedWorkflows: number;
  /** Workflow task slots: a first attempt run as a local activity holds one while the receiver answers. */
  workflowTaskSlots: number;
}

export interface WorkerCapacity {
  poolMax: number;
  /** Connections the webhook attempts of the whole process share for their short database steps (WEBHOOK_DB_CONNECTIONS). */
  webhookDbConnections: number;
  /** Those connections by environment (webhookDbLanes): a sandbox flood never waits in front of live. */
  webhookDbLanes: Partial<Record<Environment, number>>;
  /** The delivery Worker of each environment this process polls. */
  deliveries: Partial<Record<Environment, DeliveryBudget>>;
  /** Totals over the process's Workers. */
  localActivitySlots: number;
  activitySlots: number;
  /** The budget of each queue this process polls (absent: not polled). */
  queues: Partial<Record<TaskQueueRole, SlotBudget>>;
}

/**
 * The worker process's background loops (workers/main.ts) and the most pool connections each holds
 * at once (issue 32: the reservation of 4 covered only the outbox relay's first pass, the charge-start
 * relay, the reconciler and the retention job). Each loop runs its statements one after another; the
 * outbox relay runs two passes at once (PASSES_AT_ONCE; its unstarted sweep runs inside a pass) and its
 * closed-run sweep (src/webhooks/closed-deliveries.ts) on a loop of its own, and its LISTEN
 * connection is its own, outside the pool. A new loop gets its line here, or it can be starved
 * (test/integration/background-loop-connections.test.ts holds every other connection and runs one pass
 * of each loop at once).
 */
export const BACKGROUND_LOOP_CONNECTIONS = {
  'webhook outbox relay (two passes at once, and its closed-run sweep)': 3,
  'notification relay': 1,
  'charge-start relay': 1,
  'payout-start relay': 1,
  'refund-start relay': 1,
  'dispute-start relay': 1,
  'charge reconciler': 1,
  // The spare of before (the idempotency retention loop's until issue 34 made retention a Schedule).
  'partner breaker loop (issue 46: the measured calls written, the breakers evaluated, one after another)': 1,
} as const satisfies Record<string, number>;
/** Pool connections kept for the background loops: their sum (10). */
export const RESERVED_CONNECTIONS = Object.values(BACKGROUND_LOOP_CONNECTIONS).reduce((a: number, b: number) => a + b, 0);
export const DEFAULT_WEBHOOK_SEND_SLOTS = 200;
export const DEFAULT_WEBHOOK_DB_CONNECTIONS = 4;
/** The share of the process's workflow cache kept for the delivery Workers (split between environments). */
const DELIVERY_CACHE_SHARE = 0.25;
/** Most workflow task slots of a delivery Worker (the SDK default is 40 per Worker). */
const DELIVERY_WORKFLOW_TASK_SLOTS = 100;
export const DEFAULT_LIVE_SHARE = 0.5;
export const DEFAULT_LEGACY_SLOTS = 1;
/** The SDK's floor for a Worker's workflow cache. */
const MIN_CACHED_WORKFLOWS = 10;

/**
 * WEBHOOK_DB_CONNECTIONS split between the environments the process polls (issue 32): one lane each
 * (src/webhooks/db-queue.ts), live taking the larger half, so sandbox's attempts never wait in front
 * of live's. A process of one environment gives it all of them. Both environments need 2 at least.
 */
export function webhookDbLanes(connections: number, environments: readonly Environment[] = ENVIRONMENTS): Partial<Record<Environment, number>> {
  const polled = ENVIRONMENTS.filter((e) => environments.includes(e));
  if (polled.length === 1) return { [polled[0]]: connections };
  if (connections < 2) throw new Error(`WEBHOOK_DB_CONNECTIONS must be at least 2 for a worker of both environments (one lane each), got ${connections}.`);
  const live = Math.ceil(connections / 2);
  return { live, sandbox: connections - live };
}

/** The SDK's default maxCachedWorkflows for one Worker (reuseV8Context) on this process's heap. */
export function defaultProcessWorkflowCache(heapLimitBytes = v8.getHeapStatistics().heap_size_limit): number {
  const heapMiB = heapLimitBytes / (1024 * 1024);
  return Math.max(Math.floor((Math.max(heapMiB - 200, 0) * 600) / 1024), MIN_CACHED_WORKFLOWS);
}

export function workerCapacity(poolMax: number, settings: SlotSettings = {}): WorkerCapacity {
  const webhookDbConnections = settings.webhookDbConnections ?? DEFAULT_WEBHOOK_DB_CONNECTIONS;
  const sendSlots = settings.webhookSendSlots ?? DEFAULT_WEBHOOK_SEND_SLOTS;
  if (!Number.isInteger(webhookDbConnections) || webhookDbConnections < 1) throw new Error(`WEBHOOK_DB_CONNECTIONS must be a positive integer, got ${webhookDbConnections}.`);
  if (!Number.isInteger(sendSlots) || sendSlots < 1) throw new Error(`WEBHOOK_SEND_SLOTS must be a positive integer, got ${sendSlots}.`);
  const usable = poolMax - RESERVED_CONNECTIONS - webhookDbConnections;
  if (usable < 2) {
    throw new Error(
      `The worker's database pool (${poolMax}) must have at least ${RESERVED_CONNECTIONS + webhookDbConnections + 2} connections ` +
        `(${RESERVED_CONNECTIONS} reserved + WEBHOOK_DB_CONNECTIONS ${webhookDbConnections} + 2).`,
    );
  }
  const localActivitySlots = settings.localActivitySlots ?? Math.floor(usable / 2);
  const activitySlots = settings.activitySlots ?? usable - localActivitySlots;
  if (localActivitySlots < 1 || activitySlots < 1) throw new Error('Worker slot counts must be at least 1.');
  if (localActivitySlots + activitySlots + webhookDbConnections + RESERVED_CONNECTIONS > poolMax) {
    throw new Error(
      `Worker slots exceed the database pool: ${localActivitySlots} local activity + ${activitySlots} activity + ` +
        `${webhookDbConnections} webhook (WEBHOOK_DB_CONNECTIONS) + ${RESERVED_CONNECTIONS} reserved > WORKER_DB_POOL_MAX ${poolMax}. Raise the pool or lower the slots.`,
    );
  }
  const split = splitSlots({ localActivitySlots, activitySlots }, settings);
  const total = localActivitySlots + activitySlots;
  const cache = settings.cachedWorkflows ?? defaultProcessWorkflowCache();
  const environments = (settings.environments ?? ENVIRONMENTS).filter((e) => ENVIRONMENTS.includes(e));
  const deliveryCache = Math.max(MIN_CACHED_WORKFLOWS, Math.floor((cache * DELIVERY_CACHE_SHARE) / environments.length));
  const paymentsCache = environments.length > 0 ? cache - deliveryCache * environments.length : cache;
  const queues: Partial<Record<TaskQueueRole, SlotBudget>> = {};
  for (const [role, slots] of Object.entries(split) as Array<[TaskQueueRole, Omit<SlotBudget, 'cachedWorkflows'>]>) {
    const share = (slots.localActivitySlots + slots.activitySlots) / total;
    queues[role] = { ...slots, cachedWorkflows: Math.max(MIN_CACHED_WORKFLOWS, Math.floor(Math.max(paymentsCache, 0) * share)) };
  }
  const deliveries: Partial<Record<Environment, DeliveryBudget>> = {};
  for (const environment of environments) {
    deliveries[environment] = { sendSlots, cachedWorkflows: deliveryCache, workflowTaskSlots: Math.min(DELIVERY_WORKFLOW_TASK_SLOTS, deliveryCache) };
  }
  return { poolMax, webhookDbConnections, webhookDbLanes: webhookDbLanes(webhookDbConnections, environments), deliveries, localActivitySlots, activitySlots, queues };
}

type Slots = Omit<SlotBudget, 'cachedWorkflows'>;

function splitSlots(totals: Slots, settings: SlotSettings): Partial<Record<TaskQueueRole, Slots>> {
  const environments = settings.environments ?? ENVIRONMENTS;
  if (environments.length === 0) throw new Error('WORKER_ENVIRONMENTS must name at least one of sandbox, live.');
  const legacy = settings.legacySlots ?? DEFAULT_LEGACY_SLOTS;
  if (!Number.isInteger(legacy) || legacy < 0) throw new Error(`WORKER_LEGACY_SLOTS must be a non-negative integer, got ${legacy}.`);
  const liveShare = settings.liveShare ?? DEFAULT_LIVE_SHARE;
  if (!(liveShare > 0 && liveShare < 1)) throw new Error(`WORKER_LIVE_SHARE must be a number strictly between 0 and 1, got ${liveShare}.`);
  const out: Partial<Record<TaskQueueRole, Slots>> = {};
  const perEnvironment = { sandbox: {} as Slots, live: {} as Slots };
  for (const kind of ['localActivitySlots', 'activitySlots'] as const) {
    const rest = totals[kind] - legacy;
    if (rest < environments.length) {
      throw new Error(
        `Worker slots too few to split: ${totals[kind]} ${kind === 'localActivitySlots' ? 'local activity' : 'activity'} slots - ` +
          `WORKER_LEGACY_SLOTS ${legacy} leaves ${rest} for ${environments.join(' and ')} (at least 1 each). Raise the slots or lower WORKER_LEGACY_SLOTS.`,
      );
    }
    if (environments.length === 1) {
      perEnvironment[environments[0]][kind] = rest;
    } else {
      // Rounded up in live's favour, but never all of it: sandbox keeps at least one slot.
      const live = Math.min(rest - 1, Math.max(1, Math.ceil(rest * liveShare)));
      perEnvironment.live[kind] = live;
      perEnvironment.sandbox[kind] = rest - live;
    }
  }
  for (const environment of ENVIRONMENTS) if (environments.includes(environment)) out[environment] = perEnvironment[environment];
  if (legacy > 0) out.legacy = { localActivitySlots: legacy, activitySlots: legacy };
  return out;
}
