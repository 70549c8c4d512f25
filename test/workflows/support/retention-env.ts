import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { RetentionActivities } from '../../../activities/types';
import type { RetentionBatchRequest, RetentionInput, RetentionKind, RetentionPlan } from '../../../src/domain/retention';
import { randomBase62 } from '../../../src/support/new-id';
import { retentionQueue } from '../../../src/temporal/retention-schedule';
import type { retentionWorkflow } from '../../../workflows/retention';
import { startTimeSkippingWorkers, type TimeSkippingWorkers } from './time-skipping-workers';

const DAY_MS = 86_400_000;

/** The default plan of the tests: the default windows, 3 rows per batch, a minute's pause (the test server skips it). */
export const TEST_PLAN: RetentionPlan = { windowsMs: { webhook_deliveries: 90 * DAY_MS, idempotency_keys: DAY_MS, rate_limits: 3_600_000, notifications: 90 * DAY_MS }, batch: 3, pauseMs: 60_000 };

/**
 * The retention activities in memory: rows of each kind waiting past their windows (`left`), deleted
 * `batch` at a time as the store does (a delivery with two attempts, a notification with one);
 * `failures` batches fail first as an unreachable database does (retryable).
 */
export class FakeRetentionRows {
  left: Record<RetentionKind, number> = { webhook_deliveries: 0, idempotency_keys: 0, rate_limits: 0, notifications: 0 };
  plan: RetentionPlan = TEST_PLAN;
  readonly requests: RetentionBatchRequest[] = [];
  plans = 0;
  failures = 0;

  reset(): void {
    this.left = { webhook_deliveries: 0, idempotency_keys: 0, rate_limits: 0, notifications: 0 };
    this.plan = TEST_PLAN;
    this.requests.length = 0;
    this.plans = 0;
    this.failures = 0;
  }

  readonly activities: RetentionActivities = {
    retentionPlan: async () => {
      this.plans++;
      return this.plan;
    },
    deleteRetentionBatch: async (request) => {
      if (this.failures > 0) {
        this.failures--;
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      }
      this.requests.push(request);
      const rows = Math.min(request.batch, this.left[request.kind]);
      this.left[request.kind] -= rows;
      const attempts = request.kind === 'webhook_deliveries' ? { webhook_attempts: 2 * rows } : request.kind === 'notifications' ? { notification_attempts: rows } : {};
      return { rows, deleted: { [request.kind]: rows, ...attempts } };
    },
  };
}

export interface RetentionTestEnv extends TimeSkippingWorkers {
  rows: FakeRetentionRows;
  start(input?: RetentionInput, workflowId?: string): Promise<WorkflowHandleWithFirstExecutionRunId<typeof retentionWorkflow>>;
}

/** retentionWorkflow (the worker's bundle) on the time-skipping test server, on the live queue as the Schedule starts it, its activities in memory. */
export async function startRetentionEnv(): Promise<RetentionTestEnv> {
  const rows = new FakeRetentionRows();
  const workers = await startTimeSkippingWorkers('retention', rows.activities);
  return {
    ...workers,
    rows,
    start: (input = {}, workflowId = `retention-test-${randomBase62(10)}`) =>
      workers.env.client.workflow.start<typeof retentionWorkflow>('retentionWorkflow', { workflowId, taskQueue: retentionQueue(workers.taskQueue), args: [input] }),
  };
}
