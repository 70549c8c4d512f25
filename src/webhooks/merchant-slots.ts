/** WEBHOOK_MERCHANT_CONCURRENCY when unset. */
export const DEFAULT_MERCHANT_CONCURRENCY = 4;
/**
 * The process's waiting line per merchant, as a multiple of its concurrency (issue 19): a waiter holds
 * one of the delivery Worker's hundreds of send slots and no database connection (the attempt takes
 * its merchant's slot before reading anything), so a burst of one merchant's deliveries waits its turn
 * for up to MERCHANT_SLOT_WAIT_MS instead of going back to Temporal for a retry a second later.
 */
export const MERCHANT_WAITING_FACTOR = 8;

/** No send slot of the merchant came free in time; the caller gives its own slot back and tries later. */
export class MerchantBusyError extends Error {
  override name = 'MerchantBusyError';
}

interface Lane {
  active: number;
  waiters: Array<{ grant(): void }>;
}

/** Keys whose average hold is remembered after their lane goes idle (the oldest is forgotten beyond). */
const REMEMBERED_HOLDS = 10_000;

/** Bounds of the retry delay a refused caller is given (MerchantSlots.retryDelayMs). */
export const BUSY_RETRY_MIN_MS = 200;
export const BUSY_RETRY_MAX_MS = 60_000;

export interface AcquireOptions {
  /** Longest wait for a slot; then MerchantBusyError. */
  waitMs: number;
  /** Ends the wait at once (the activity was cancelled, the worker shuts down); rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * An in-process counting semaphore per key (merchant and environment): at most `perKey` holders at
 * once for any key, the others waiting first come, first served. At most `maxWaiting` may wait for a
 * key too (default `perKey`; the process's semaphore allows MERCHANT_WAITING_FACTOR × `perKey`); a
 * further caller is refused at once, so one merchant's backlog ties up a bounded number of the
 * worker's send slots, and its other tasks go back to Temporal (retried after `retryDelayMs`)
 * within milliseconds instead of holding a slot while they wait. Idle keys are forgotten.
 */
export class MerchantSlots {
  private readonly lanes = new Map<string, Lane>();
  /** Moving average of how long a holder of each key kept its slot (ms). */
  private readonly holds = new Map<string, number>();

  constructor(
    readonly perKey: number = DEFAULT_MERCHANT_CONCURRENCY,
    /** Callers that may wait per key; beyond them a caller is refused at once. */
    readonly maxWaiting: number = perKey,
  ) {
    if (!Number.isInteger(perKey) || perKey < 1) throw new Error(`merchant concurrency must be a positive integer, got ${perKey}`);
    if (!Number.isInteger(maxWaiting) || maxWaiting < 0) throw new Error(`merchant waiting line must be a non-negative integer, got ${maxWaiting}`);
  }

  /** Holders of `key` now. */
  active(key: string): number {
    return this.lanes.get(key)?.active ?? 0;
  }

  /** Callers waiting for `key` now. */
  waiting(key: string): number {
    return this.lanes.get(key)?.waiters.length ?? 0;
  }

  /**
   * How long a caller refused now should wait before it asks again (issue 19): the time the holders
   * ahead of it need, from the key's average hold, bounded to [BUSY_RETRY_MIN_MS, BUSY_RETRY_MAX_MS].
   * A merchant whose endpoint takes 30 s gets its deferred sends back in a minute, not after Temporal's
   * 1, 2, 4… s backoff, whose retries would load the worker and the server for every other merchant.
   */
  retryDelayMs(key: string): number {
    const lane = this.lanes.get(key);
    const ahead = lane ? lane.active + lane.waiters.length : 0;
    const needed = ((this.holds.get(key) ?? 0) * ahead) / this.perKey;
    return Math.round(Math.min(BUSY_RETRY_MAX_MS, Math.max(BUSY_RETRY_MIN_MS, needed)));
  }

  /** Resolves with the release (call it once the send is over; calling it again does nothing). */
  acquire(key: string, options: AcquireOptions): Promise<() => void> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { active: 0, waiters: [] };
      this.lanes.set(key, lane);
    }
    const held = lane;
    if (held.active < this.perKey) {
      held.active++;
      return Promise.resolve(this.releaser(key, held));
    }
    if (held.waiters.length >= this.maxWaiting) {
      return Promise.reject(new MerchantBusyError(`${held.active} sends to this merchant are in progress and ${held.waiters.length} wait`));
    }
    return new Promise<() => void>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        const index = held.waiters.indexOf(waiter);
        if (index >= 0) held.waiters.splice(index, 1);
        this.forgetIfIdle(key, held);
      };
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser(key, held));
        },
      };
      const onAbort = () => {
        leave();
        reject(options.signal!.reason);
      };
      const timer = setTimeout(() => {
        leave();
        reject(new MerchantBusyError(`no send slot of this merchant came free within ${options.waitMs} ms`));
      }, options.waitMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      held.waiters.push(waiter);
    });
  }

  private releaser(key: string, lane: Lane): () => void {
    let released = false;
    const since = Date.now();
    return () => {
      if (released) return;
      released = true;
      this.rememberHold(key, Date.now() - since);
      const next = lane.waiters.shift();
      // The slot passes straight to the first waiter: `active` stays as it is.
      if (next) next.grant();
      else {
        lane.active--;
        this.forgetIfIdle(key, lane);
      }
    };
  }

  private rememberHold(key: string, heldMs: number): void {
    const before = this.holds.get(key);
    this.holds.delete(key); // re-inserted last: the Map's order is then the order of last use
    this.holds.set(key, before === undefined ? heldMs : 0.8 * before + 0.2 * heldMs);
    if (this.holds.size > REMEMBERED_HOLDS) this.holds.delete(this.holds.keys().next().value!);
  }

  private forgetIfIdle(key: string, lane: Lane): void {
    if (lane.active === 0 && lane.waiters.length === 0 && this.lanes.get(key) === lane) this.lanes.delete(key);
  }
}

const shared = new Map<number, MerchantSlots>();

/**
 * The process's semaphore for a concurrency: every Worker of the process (one per task queue) shares
 * it, so a merchant's limit holds for the whole process. Keys name the environment as well as the
 * merchant, so a merchant's sandbox traffic never takes its live slots.
 */
export function processMerchantSlots(perKey: number = DEFAULT_MERCHANT_CONCURRENCY): MerchantSlots {
  let slots = shared.get(perKey);
  if (!slots) {
    slots = new MerchantSlots(perKey, perKey * MERCHANT_WAITING_FACTOR);
    shared.set(perKey, slots);
  }
  return slots;
}

export function merchantSlotKey(merchantId: string, environment: string): string {
  return `${environment}:${merchantId}`;
}
