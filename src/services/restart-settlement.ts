import type { WorkflowStartOptions } from '@temporalio/client';
import type { Environment } from '../domain/environment';
import { LIVE_PAYOUT_DEADLINE_MS } from '../domain/live-rail';
import type { PartnerWaitCarry } from '../domain/partner-wait';
import { settlementStartSearchAttributePairs } from '../domain/settlement-search-attributes';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../domain/settlement-start';
import { workflowDetails } from '../domain/workflow-details';
import type { Orm } from '../persistence/orm';
import { restartReferenceOf, RESTARTED_WAIT } from '../persistence/partner/restart-reference';
import { taskQueueFor } from '../temporal/task-queues';

/** A batch the database holds open (its money in transit, reserved): a restart may start a run for it. */
export const OPEN_SETTLEMENT_STATUSES: readonly string[] = ['pending'];

/**
 * The partner wait a restarted live batch resumes (issue 43), from the database: a batch whose
 * partner reference was chosen may have reached the partner, so the new run never submits as a first
 * submission. It keeps the first submission's 24 h window (from the reference's `created_at`, as a
 * restarted payout does: activities/rail.ts), knows whether the partner ever acknowledged the
 * reference (an accepted or duplicate submission, a PENDING, a SUCCESSFUL in `rail_answers`: then
 * `unknown` is not final), and asks the partner at once. Null when the batch has no reference yet
 * (nothing was ever sent: the new run submits it as new).
 */
export async function restartedSettlementWait(orm: Orm, settlementId: string): Promise<PartnerWaitCarry | null> {
  const ref = await restartReferenceOf(orm, settlementId);
  if (!ref) return null;
  return { startedMs: ref.createdMs, submitUntilMs: ref.createdMs + LIVE_PAYOUT_DEADLINE_MS, acknowledged: ref.acknowledged, ...RESTARTED_WAIT };
}

/**
 * A settlement batch's start for `payments restart stl_…` (src/services/restart-payment.ts): the
 * batch's own start (same id, its environment's queue, MerchantId/Environment/Currency), with
 * `resume` for a live batch that has a partner reference. The new run's sweep finds the batch as
 * written (nothing moves twice) and goes on from there. Null when no batch has this id.
 */
export async function settlementRestartStart(
  orm: Orm,
  id: string,
  taskQueue: string,
): Promise<{ type: string; status: string; options: WorkflowStartOptions & { args: [SettlementStart] } } | null> {
  const [batch] = await orm.em
    .fork()
    .execute<Array<{ merchant_id: string; environment: Environment; currency: string; status: string; run_id: string | null; sandbox_outcome: string | null }>>(
      `select merchant_id, environment, currency, status, run_id, sandbox_outcome from settlements where id = ?`,
      [id],
    );
  if (!batch) return null;
  const resume = batch.environment === 'live' ? await restartedSettlementWait(orm, id) : null;
  const start: SettlementStart = {
    settlementId: id,
    merchantId: batch.merchant_id,
    environment: batch.environment,
    currency: batch.currency,
    outcome: batch.sandbox_outcome === 'failed' ? 'failed' : null,
    runId: batch.run_id,
    ...(resume ? { resume } : {}),
  };
  return {
    type: SETTLEMENT_WORKFLOW_TYPE,
    status: batch.status,
    options: {
      workflowId: id,
      taskQueue: taskQueueFor(taskQueue, batch.environment),
      args: [start],
      typedSearchAttributes: settlementStartSearchAttributePairs(start),
      staticDetails: workflowDetails({ kind: 'Settlement batch', id, merchantId: start.merchantId, environment: start.environment, currency: start.currency, extra: { restarted: 'payments restart' } }),
    },
  };
}
