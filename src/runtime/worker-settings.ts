import { ENVIRONMENTS, type Environment } from '../domain/environment';

/**
 * The worker's slot and queue settings read from the environment (config.ts reads them at start;
 * src/runtime/worker-capacity.ts turns them into each Worker's slots). Settings only: no runtime.
 */

/** The worker process's database pool (WORKER_DB_POOL_MAX) when unset. */
// 8 local activity + 8 activity slots + 4 webhook connections + 10 for the background loops
// (RESERVED_CONNECTIONS, src/runtime/worker-capacity.ts; 24 before issue 32 reserved only 4).
export const DEFAULT_WORKER_POOL_MAX = 30;

export interface SlotSettings {
  /** WORKER_LOCAL_ACTIVITY_SLOTS: total over the process. */
  localActivitySlots?: number;
  /** WORKER_ACTIVITY_SLOTS: total over the process. */
  activitySlots?: number;
  /** WORKER_LIVE_SHARE: live's fraction of the slots left after legacy, strictly between 0 and 1. */
  liveShare?: number;
  /** WORKER_LEGACY_SLOTS: slots of each kind on the legacy queue; 0 = not polled. */
  legacySlots?: number;
  /** WORKER_ENVIRONMENTS: the environments whose queues this process polls. */
  environments?: readonly Environment[];
  /** The whole process's workflow cache (default: what the SDK would give one Worker on this heap). */
  cachedWorkflows?: number;
  /** WEBHOOK_SEND_SLOTS: concurrent webhook attempts per environment's delivery Worker. */
  webhookSendSlots?: number;
  /** WEBHOOK_DB_CONNECTIONS: connections of the pool kept for webhook attempts' database steps. */
  webhookDbConnections?: number;
}

type QueueSettings = Pick<SlotSettings, 'liveShare' | 'legacySlots' | 'environments' | 'webhookSendSlots' | 'webhookDbConnections'>;

/** WORKER_LIVE_SHARE, WORKER_LEGACY_SLOTS, WORKER_ENVIRONMENTS, WEBHOOK_SEND_SLOTS and WEBHOOK_DB_CONNECTIONS (unset: the defaults above). */
export function workerQueueSettings(env: NodeJS.ProcessEnv = process.env): QueueSettings {
  const out: QueueSettings = {};
  for (const [name, key] of [['WEBHOOK_SEND_SLOTS', 'webhookSendSlots'], ['WEBHOOK_DB_CONNECTIONS', 'webhookDbConnections']] as const) {
    const raw = env[name];
    if (!raw) continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
    out[key] = value;
  }
  if (env.WORKER_LIVE_SHARE) {
    const share = Number(env.WORKER_LIVE_SHARE);
    if (!(share > 0 && share < 1)) throw new Error(`WORKER_LIVE_SHARE must be a number strictly between 0 and 1, got "${env.WORKER_LIVE_SHARE}"`);
    out.liveShare = share;
  }
  if (env.WORKER_LEGACY_SLOTS) {
    const slots = Number(env.WORKER_LEGACY_SLOTS);
    if (!Number.isInteger(slots) || slots < 0) throw new Error(`WORKER_LEGACY_SLOTS must be a non-negative integer, got "${env.WORKER_LEGACY_SLOTS}"`);
    out.legacySlots = slots;
  }
  if (env.WORKER_ENVIRONMENTS) {
    const names = [...new Set(env.WORKER_ENVIRONMENTS.split(',').map((e) => e.trim()).filter(Boolean))];
    const unknown = names.filter((n) => !(ENVIRONMENTS as readonly string[]).includes(n));
    if (names.length === 0 || unknown.length > 0) {
      throw new Error(`WORKER_ENVIRONMENTS must list sandbox and/or live (comma-separated), got "${env.WORKER_ENVIRONMENTS}"`);
    }
    out.environments = names as Environment[];
  }
  return out;
}
