import type { Environment } from '../domain/environment';

/**
 * The database queue of webhook (and notification) attempts (issue 32): the pool connections the
 * attempts of one process share for their short database steps (WEBHOOK_DB_CONNECTIONS), one lane per
 * environment, so a sandbox flood never waits in front of live (webhookDbLanes in
 * src/runtime/worker-capacity.ts splits the connections). In each lane:
 *
 * - a `record` (the result of a send that is done) goes before any waiting `read` (a new attempt's
 *   context): finishing what was sent comes first, so a backlog cannot hold sends done but unrecorded
 *   behind new attempts, which would then time out and be sent again;
 * - every wait is bounded (`waitMs`) and may be cut short by a signal (the activity's cancellation):
 *   a step that cannot get a connection in time fails with DbQueueTimeout instead of waiting on.
 */

/** What a step does: read a new attempt's context, or record a send that is done (goes first). */
export type DbStep = 'read' | 'record';

/** No connection of the lane came free within the step's wait. */
export class DbQueueTimeout extends Error {
  override name = 'DbQueueTimeout';
}

export interface DbStepOptions {
  /** Longest wait for a connection of the lane; then DbQueueTimeout. */
  waitMs: number;
  /** Ends the wait at once, rejecting with the signal's reason (a step already running is not cut). */
  signal?: AbortSignal;
}

interface Waiter {
  step: DbStep;
  grant(): void;
}

/** One environment's lane: at most `size` steps at once; records served before reads, each first come first served. */
export class DbLane {
  private running = 0;
  private readonly waiters: Waiter[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`a webhook database lane needs at least one connection, got ${size}`);
  }

  /** Steps running now. */
  active(): number {
    return this.running;
  }

  /** Steps waiting now (of one kind, or all). */
  waiting(step?: DbStep): number {
    return step ? this.waiters.filter((w) => w.step === step).length : this.waiters.length;
  }

  async run<T>(step: DbStep, fn: () => Promise<T>, options: DbStepOptions): Promise<T> {
    await this.acquire(step, options);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(step: DbStep, options: DbStepOptions): Promise<void> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    if (this.running < this.size && this.waiters.length === 0) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
      };
      const waiter: Waiter = {
        step,
        grant: () => {
          leave();
          resolve();
        },
      };
      const onAbort = () => {
        leave();
        reject(options.signal!.reason);
      };
      const timer = setTimeout(() => {
        leave();
        reject(new DbQueueTimeout(`no webhook database connection came free within ${options.waitMs} ms (${this.running} steps running, ${this.waiters.length} waiting)`));
      }, Math.max(0, options.waitMs));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      // Records before reads: a record joins the line behind the other records only.
      if (step === 'record') {
        const firstRead = this.waiters.findIndex((w) => w.step === 'read');
        this.waiters.splice(firstRead < 0 ? this.waiters.length : firstRead, 0, waiter);
      } else this.waiters.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiters[0];
    // The connection passes straight to the first waiter: `running` stays as it is.
    if (next) next.grant();
    else this.running--;
  }
}

/** The lanes of one process, by environment. */
export class WebhookDbQueues {
  private readonly lanes = new Map<Environment, DbLane>();

  constructor(sizes: Partial<Record<Environment, number>>) {
    for (const [environment, size] of Object.entries(sizes) as Array<[Environment, number]>) this.lanes.set(environment, new DbLane(size));
  }

  /** The environment's lane (one of a single connection for an environment the sizes left out: this process does not poll it). */
  lane(environment: Environment): DbLane {
    let lane = this.lanes.get(environment);
    if (!lane) {
      lane = new DbLane(1);
      this.lanes.set(environment, lane);
    }
    return lane;
  }

  run<T>(environment: Environment, step: DbStep, fn: () => Promise<T>, options: DbStepOptions): Promise<T> {
    return this.lane(environment).run(step, fn, options);
  }
}

const shared = new Map<string, WebhookDbQueues>();

/** The process's queues for these lane sizes: every Worker of the process shares them, webhook and notification attempts alike. */
export function processWebhookDbQueues(sizes: Partial<Record<Environment, number>>): WebhookDbQueues {
  const key = JSON.stringify(Object.entries(sizes).sort());
  let queues = shared.get(key);
  if (!queues) {
    queues = new WebhookDbQueues(sizes);
    shared.set(key, queues);
  }
  return queues;
}

/**
 * The environment of an attempt from its activity's task queue (`<base>-<environment>-webhooks`,
 * src/temporal/task-queues.ts), for inputs that do not name it (notifications; deliveries started
 * before issue 19). Anything else counts as sandbox, never taking live's lane.
 */
export function environmentOfQueue(queue: string): Environment {
  return /-live(-webhooks)?$/.test(queue) ? 'live' : 'sandbox';
}
