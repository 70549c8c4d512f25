import type { Client } from '@temporalio/client';
import { HELD_FOR_REVIEW_REASON } from '../domain/attention-reason';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import { deploymentTaskQueues } from './task-queues';
import { withinDeadline } from './deadline';
import type { PaymentType } from '../domain/payment-types';

/**
 * How many payment workflows of this deployment wait for an operator (`NeedsAttention = true`, still
 * running), by payment type, environment and kind: the `payments_needing_attention` gauge.
 *
 * - kind `trouble`: something went wrong or is overdue (a database step gave up, an indeterminate
 *   charge, a partner that does not answer, a failed settlement, a payment review).
 * - kind `review` (payouts only): a payout held for review, waiting for an operator's decision: the
 *   normal flow, not trouble (NeedsAttentionReason "held for review"; a run from before that search
 *   attribute, still held, counts here too). `payments_payout_reviews_overdue` counts those held past
 *   REVIEW_OVERDUE_AFTER_MS.
 *
 * One Temporal count query per cell (visibility groups counts by ExecutionStatus only), all at once,
 * within one deadline; trouble is all marked runs less the reviews. `payments stuck` lists them, with
 * a reason each (src/services/stuck-payments.ts); it also lists charges unresolved past expires_at (the
 * worker's `payments_overdue_charges`) and records whose workflow is closed, which this does not count.
 */

/** A payout held for review this long is counted in `payments_payout_reviews_overdue` (PAYOUT_REVIEW_TIMEOUT, 72h by default, declines it). */
export const REVIEW_OVERDUE_AFTER_MS = 4 * 3_600_000;

/** The workflow types that carry each payment type's NeedsAttention (a reversal runs under its charge's id). */
const WORKFLOW_TYPES: Record<PaymentType, readonly string[]> = {
  charge: ['chargeWorkflow', 'chargeReversalWorkflow'],
  payout: ['payoutWorkflow'],
  refund: ['refundWorkflow'],
  settlement: ['settlementWorkflow'],
  dispute: ['disputeWorkflow'],
};

export type AttentionKind = 'trouble' | 'review';

export interface AttentionCount {
  type: PaymentType;
  environment: Environment;
  kind: AttentionKind;
  count: number;
}

export interface AttentionCounts {
  /** Every (type, environment) cell of kind trouble, and the payout cells of kind review, zero included. */
  cells: AttentionCount[];
  /** Payouts held for review for longer than REVIEW_OVERDUE_AFTER_MS, by environment. */
  overdueReviews: Array<{ environment: Environment; count: number }>;
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

/** The payouts of `needingAttentionQuery` held for review (started before `startedBefore`, when given). */
export function heldForReviewQuery(taskQueueBase: string, environment: Environment, startedBefore?: Date): string {
  const held = `PaymentStatus = 'held_for_review' AND (NeedsAttentionReason = ${quoted(HELD_FOR_REVIEW_REASON)} OR NeedsAttentionReason IS NULL)`;
  return `${needingAttentionQuery(taskQueueBase, 'payout', environment)} AND ${held}${startedBefore ? ` AND StartTime < '${startedBefore.toISOString()}'` : ''}`;
}

export async function countNeedingAttention(client: Client, taskQueueBase: string, deadlineMs: number, now = Date.now()): Promise<AttentionCounts> {
  const types = Object.keys(WORKFLOW_TYPES) as PaymentType[];
  const overdueBefore = new Date(now - REVIEW_OVERDUE_AFTER_MS);
  const queries = [
    ...types.flatMap((type) => ENVIRONMENTS.map((environment) => ({ what: 'all' as const, type, environment, query: needingAttentionQuery(taskQueueBase, type, environment) }))),
    ...ENVIRONMENTS.map((environment) => ({ what: 'review' as const, type: 'payout' as const, environment, query: heldForReviewQuery(taskQueueBase, environment) })),
    ...ENVIRONMENTS.map((environment) => ({ what: 'overdue' as const, type: 'payout' as const, environment, query: heldForReviewQuery(taskQueueBase, environment, overdueBefore) })),
  ];
  // Every call settles before this does (none is left running), then the first failure is thrown.
  const results = await withinDeadline(client, deadlineMs, () => Promise.allSettled(queries.map(async (q) => ({ ...q, count: Number((await client.workflow.count(q.query)).count) }))));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const counted = results.map((r) => (r as PromiseFulfilledResult<(typeof queries)[number] & { count: number }>).value);
  const of = (what: 'all' | 'review' | 'overdue', type: PaymentType, environment: Environment) =>
    counted.find((c) => c.what === what && c.type === type && c.environment === environment)?.count ?? 0;
  const cells: AttentionCount[] = [];
  for (const type of types) {
    for (const environment of ENVIRONMENTS) {
      const review = type === 'payout' ? of('review', type, environment) : 0;
      // Two counts a moment apart: never below zero.
      cells.push({ type, environment, kind: 'trouble', count: Math.max(0, of('all', type, environment) - review) });
      if (type === 'payout') cells.push({ type, environment, kind: 'review', count: review });
    }
  }
  return { cells, overdueReviews: ENVIRONMENTS.map((environment) => ({ environment, count: of('overdue', 'payout', environment) })) };
}
