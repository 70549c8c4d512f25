/**
 * How much work one worker process takes on at once, sized to its database pool so that no slot
 * ever waits for a connection it cannot get:
 *
 *   local activity slots + activity slots + RESERVED_CONNECTIONS <= pool size
 *
 * A charge step (local activity) holds one connection for its whole transaction; a webhook attempt
 * (activity) holds one for its two short queries, never during the HTTP send; the outbox relay and the
 * charge reconciler use one each. Defaults (pool 20): 9 local activity slots and 9 activity slots.
 * Each can be set (WORKER_DB_POOL_MAX, WORKER_LOCAL_ACTIVITY_SLOTS, WORKER_ACTIVITY_SLOTS); a
 * combination that could exhaust the pool is refused at start-up with the numbers in the message.
 */
export interface WorkerCapacity {
  poolMax: number;
  localActivitySlots: number;
  activitySlots: number;
}

/** The outbox relay and the charge reconciler. */
export const RESERVED_CONNECTIONS = 2;
export const DEFAULT_WORKER_POOL_MAX = 20;

export function workerCapacity(poolMax: number, overrides: { localActivitySlots?: number; activitySlots?: number } = {}): WorkerCapacity {
  const usable = poolMax - RESERVED_CONNECTIONS;
  if (usable < 2) throw new Error(`The worker's database pool (${poolMax}) must have at least ${RESERVED_CONNECTIONS + 2} connections.`);
  const localActivitySlots = overrides.localActivitySlots ?? Math.floor(usable / 2);
  const activitySlots = overrides.activitySlots ?? usable - localActivitySlots;
  if (localActivitySlots < 1 || activitySlots < 1) throw new Error('Worker slot counts must be at least 1.');
  if (localActivitySlots + activitySlots + RESERVED_CONNECTIONS > poolMax) {
    throw new Error(
      `Worker slots exceed the database pool: ${localActivitySlots} local activity + ${activitySlots} activity + ` +
        `${RESERVED_CONNECTIONS} reserved > WORKER_DB_POOL_MAX ${poolMax}. Raise the pool or lower the slots.`,
    );
  }
  return { poolMax, localActivitySlots, activitySlots };
}
