import pLimit from 'p-limit';

/**
 * A bound on password hashes in flight (docs/security.md "Merchant portal"): each argon2 check costs
 * 64 MiB and three passes on libuv's thread pool, in the process that also serves both API listeners.
 * At most `slots` run at once and `queue` more wait; past that, `run` refuses at once (HashSlotsFull)
 * instead of queueing without end, and the sign-in answers 503 with Retry-After.
 */
export class HashSlotsFull extends Error {
  constructor() {
    super('every password hash slot is taken');
  }
}

export interface HashSlots {
  /** Whether a new hash would be refused now. */
  readonly full: boolean;
  /** Hashes running and waiting. */
  readonly inFlight: number;
  /** Runs `work` in a slot, or rejects with HashSlotsFull at once when every slot and queue place is taken. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** Two slots leave libuv's other two threads (UV_THREADPOOL_SIZE, 4 by default) to the API's file and DNS work. */
export const DEFAULT_HASH_SLOTS = 2;
export const DEFAULT_HASH_QUEUE = 8;

export function hashSlots(slots = DEFAULT_HASH_SLOTS, queue = DEFAULT_HASH_QUEUE): HashSlots {
  const limit = pLimit(slots);
  const inFlight = () => limit.activeCount + limit.pendingCount;
  return {
    get full() {
      return inFlight() >= slots + queue;
    },
    get inFlight() {
      return inFlight();
    },
    run(work) {
      if (inFlight() >= slots + queue) return Promise.reject(new HashSlotsFull());
      return limit(work);
    },
  };
}
