import type { Worker } from '@temporalio/worker';
import type { Environment } from '../src/domain/environment';
import type { TaskQueueRole } from '../src/temporal/task-queues';

/** A Worker's part in the process: a payments queue, or an environment's webhook delivery queue. */
export type WorkerRole = TaskQueueRole | `${Environment}-webhooks`;

/**
 * The payments worker of one process: a Temporal Worker per task queue (sandbox, live, legacy, and
 * each environment's webhook deliveries), run
 * and stopped together. Used like a single Worker: `run()` resolves once every Worker has stopped
 * (and rejects with the first failure); when one stops, for whatever reason, the others are shut down
 * too, so a process never goes on serving one environment silently without the other.
 */
export class WorkerGroup {
  private stopping = false;

  constructor(readonly workers: Partial<Record<WorkerRole, Worker>>) {}

  /** The task queues polled, by role. */
  get taskQueues(): Partial<Record<WorkerRole, string>> {
    return Object.fromEntries(Object.entries(this.workers).map(([role, worker]) => [role, worker.options.taskQueue]));
  }

  private get all(): Worker[] {
    return Object.values(this.workers);
  }

  async run(): Promise<void> {
    if (this.stopping) throw new Error('the payments worker was shut down before it ran');
    const runs = this.all.map((worker) => worker.run().finally(() => this.shutdown()));
    const results = await Promise.allSettled(runs);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Starts a graceful shutdown of every Worker still running (idempotent). */
  shutdown(): void {
    this.stopping = true;
    for (const worker of this.all) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    }
  }

  /** Runs the Workers while `fn` runs, then shuts them down and waits for them. */
  async runUntil<R>(fn: () => Promise<R>): Promise<R> {
    const running = this.run();
    const stoppedEarly = running.then(() => {
      throw new Error('the payments worker stopped before the work it ran for finished');
    });
    try {
      return await Promise.race([fn(), stoppedEarly]);
    } finally {
      this.shutdown();
      await running;
      stoppedEarly.catch(() => undefined);
    }
  }
}
