import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { WebhookRecoveryActivities } from '../../../activities/types';
import type { RecoveryPageRequest, WebhookRecoveryInput } from '../../../src/domain/webhook-recovery';
import { randomBase62 } from '../../../src/support/new-id';
import { webhookTaskQueueFor } from '../../../src/temporal/task-queues';
import type { webhookRecoveryWorkflow } from '../../../workflows/webhook-recovery';
import { startDeliveryQueueWorker, type TimeSkippingWorkers } from './time-skipping-workers';

/**
 * The recovery's page step in memory: `candidates` event sequences to resend (of `events` in all),
 * walked as the store does (at most `limit` resends a page, a page repeated after its commit queues
 * nothing twice); `failures` pages fail first as an unreachable database does (retryable), the first
 * of them after its commit.
 */
export class FakeRecovery {
  events = 0;
  candidates: number[] = [];
  failures = 0;
  readonly requests: RecoveryPageRequest[] = [];
  readonly queued = new Set<number>();
  private cursor = 0;

  reset(events = 0, candidates: number[] = []): void {
    this.events = events;
    this.candidates = candidates;
    this.failures = 0;
    this.requests.length = 0;
    this.queued.clear();
    this.cursor = 0;
  }

  readonly activities: WebhookRecoveryActivities = {
    recoverWebhookPage: async (request) => {
      this.requests.push(request);
      const from = request.after ?? 0;
      if (this.cursor > from) return { after: this.cursor, queued: this.queued.size, started: 0, done: this.cursor >= this.events };
      const page = this.candidates.filter((s) => s > from && !this.queued.has(s)).slice(0, request.limit);
      const to = page.length === request.limit ? page[page.length - 1] : this.events;
      for (const s of page) this.queued.add(s);
      this.cursor = to;
      if (this.failures > 0) {
        this.failures--;
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432'); // after the commit: the repeat answers the range again
      }
      return { after: to, queued: this.queued.size, started: page.length, done: to >= this.events };
    },
  };
}

export interface RecoveryTestEnv extends TimeSkippingWorkers {
  recovery: FakeRecovery;
  input(overrides?: Partial<WebhookRecoveryInput>): WebhookRecoveryInput;
  start(input: WebhookRecoveryInput, workflowId?: string): Promise<WorkflowHandleWithFirstExecutionRunId<typeof webhookRecoveryWorkflow>>;
}

/** webhookRecoveryWorkflow (the worker's bundle) on the time-skipping test server, on the sandbox webhook queue, its page step in memory. */
export async function startRecoveryEnv(): Promise<RecoveryTestEnv> {
  const recovery = new FakeRecovery();
  const workers = await startDeliveryQueueWorker('recovery', recovery.activities);
  return {
    ...workers,
    recovery,
    input: (overrides = {}) => ({ recoveryId: `whr_${randomBase62(24)}`, merchantId: 'mer_test', environment: 'sandbox', endpointId: 'we_test', baseQueue: workers.taskQueue, retryScheduleMs: [5000], ...overrides }),
    start: (input, workflowId = input.recoveryId) =>
      workers.env.client.workflow.start<typeof webhookRecoveryWorkflow>('webhookRecoveryWorkflow', { workflowId, taskQueue: webhookTaskQueueFor(workers.taskQueue, 'sandbox'), args: [input] }),
  };
}
