import type { Client } from '@temporalio/client';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import { deploymentTaskQueues } from './task-queues';
import { withinDeadline } from './deadline';
import type { PaymentType } from '../domain/payment-types';

/**
 * How many payment workflows of this deployment wait for an operator (`NeedsAttention = true`, still
 * running), by payment type and environment: the `payments_needing_attention` gauge. One Temporal count
 * query per type and environment (visibility groups counts by ExecutionStatus only), all at once,
 * within one deadline. `payments stuck` lists them, with a reason each (src/services/stuck-payments.ts);
 * it also lists charges unresolved past expires_at (the worker's `payments_overdue_charges`) and
 * records whose workflow is closed, which this does not count.
 */

/** The workflow types that carry each payment type's NeedsAttention (a reversal runs under its charge's id). */
const WORKFLOW_TYPES: Record<PaymentType, readonly string[]> = {
  charge: ['chargeWorkflow', 'chargeReversalWorkflow'],
  payout: ['payoutWorkflow'],
  refund: ['refundWorkflow'],
  settlement: ['settlementWorkflow'],
  dispute: ['disputeWorkflow'],
};

export interface AttentionCount {
  type: PaymentType;
  environment: Environment;
  count: number;
}

const quoted = (value: string) => {
  // Task queue names come from TEMPORAL_TASK_QUEUE; a quote would end the literal early.
  if (/['"\\]/.test(value)) throw new Error(`task queue name ${JSON.stringify(value)} cannot be used in a list query`);
  return `'${value}'`;
};

/** The list query of one cell: running, marked, of these types and environment, on this deployment's queues. */
export function needingAttentionQuery(taskQueueBase: string, type: PaymentType, environment: Environment): string {
  const queues = Object.values(deploymentTaskQueues(taskQueueBase)).map(quoted).join(', ');
  const types = WORKFLOW_TYPES[type].map(quoted).join(', ');
  return `NeedsAttention = true AND ExecutionStatus = 'Running' AND Environment = '${environment}' AND WorkflowType IN (${types}) AND TaskQueue IN (${queues})`;
}

export async function countNeedingAttention(client: Client, taskQueueBase: string, deadlineMs: number): Promise<AttentionCount[]> {
  const cells = (Object.keys(WORKFLOW_TYPES) as PaymentType[]).flatMap((type) => ENVIRONMENTS.map((environment) => ({ type, environment })));
  // Every call settles before this does (none is left running), then the first failure is thrown.
  const results = await withinDeadline(client, deadlineMs, () =>
    Promise.allSettled(
      cells.map(async ({ type, environment }) => {
        const { count } = await client.workflow.count(needingAttentionQuery(taskQueueBase, type, environment));
        return { type, environment, count };
      }),
    ),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<AttentionCount>).value);
}
