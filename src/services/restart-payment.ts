import { WorkflowNotFoundError, type WorkflowStartOptions } from '@temporalio/client';
import { operatorRefusal, type OperatorFields } from '../domain/operator-action';
import { DISPUTE_WORKFLOW_TYPE } from '../domain/dispute';
import { PAYOUT_WORKFLOW_TYPE } from '../domain/payout-start';
import { REFUND_WORKFLOW_TYPE } from '../domain/refund';
import { findDispute } from '../persistence/disputes/dispute-store';
import type { Orm } from '../persistence/orm';
import { loadPayout } from '../persistence/payouts/payout-store';
import { findRefund } from '../persistence/refunds/refund-store';
import type { TemporalHandle } from '../temporal/connection';
import { withinDeadline } from '../temporal/deadline';
import { disputeStartOptions } from '../temporal/dispute-start';
import { payoutStartOptions } from '../temporal/payout-start';
import { refundStartOptions } from '../temporal/refund-start';
import { chargeRestartStart, OPEN_CHARGE_STATUSES } from './restart-charge';
import { isReviewId, restartReview } from './restart-review';
import { OPEN_SETTLEMENT_STATUSES, settlementRestartStart } from './restart-settlement';

const OPEN: Record<string, readonly string[]> = { charge: OPEN_CHARGE_STATUSES, payout: ['pending', 'held_for_review'], refund: ['pending'], dispute: ['needs_response', 'under_review'], settlement: OPEN_SETTLEMENT_STATUSES };

/** The record's start options (its own, as the API starts it), or null when there is no such record. */
async function startOf(orm: Orm, id: string, taskQueue: string): Promise<{ type: string; status: string; options: WorkflowStartOptions & { args: [object] } } | null> {
  if (id.startsWith('txn_')) return chargeRestartStart(orm, id, taskQueue);
  if (id.startsWith('stl_')) return settlementRestartStart(orm, id, taskQueue);
  if (id.startsWith('po_')) {
    const payout = await loadPayout(orm, id);
    return payout && { type: PAYOUT_WORKFLOW_TYPE, status: payout.status, options: payoutStartOptions(payout, taskQueue) };
  }
  const table = id.startsWith('re_') ? 'refunds' : id.startsWith('dp_') ? 'disputes' : null;
  if (!table) return null;
  const [scope] = await orm.em.fork().execute<Array<{ merchant_id: string; environment: string }>>(`select merchant_id, environment from ${table} where id = ?`, [id]);
  if (!scope) return null;
  const key = { merchantId: scope.merchant_id, environment: scope.environment };
  if (table === 'refunds') {
    const refund = await findRefund(orm, key, id);
    return refund && { type: REFUND_WORKFLOW_TYPE, status: refund.status, options: refundStartOptions(refund, taskQueue) };
  }
  const dispute = await findDispute(orm, key, id);
  return dispute && { type: DISPUTE_WORKFLOW_TYPE, status: dispute.status, options: disputeStartOptions(dispute, taskQueue) };
}

/**
 * Operator action (`payments restart txn_…|po_…|re_…|dp_… --reason TEXT`): a charge (issue 43: a live
 * one keeps its hold while it waits for the partner; it resumes that wait, src/services/restart-charge.ts), payout, refund or dispute the
 * database holds open while its workflow is closed (terminated by hand, say) or missing keeps its
 * money reserved or held forever. This starts a new run under the same id, with the record's own
 * start options, whose input carries the operator's fields (the run audits them first). Safe: the
 * workflows trust only the database, and every step is safe to repeat. Refused for a record that is
 * finished, or whose workflow is still running.
 *
 * Issue 43: a settlement batch (`stl_…`, pending: its money in transit) restarts as a live charge
 * does, resuming its partner wait from the database (src/services/restart-settlement.ts: no first
 * submission, the first submission's 24 h window kept); a payment review (`review-<id>`) whose run
 * ended while open starts again (src/services/restart-review.ts).
 */
export async function restartPayment(orm: Orm, temporal: TemporalHandle, taskQueue: string, id: string, request: OperatorFields, deadlineMs = 10_000) {
  const refusal = operatorRefusal(request);
  if (refusal) throw new Error(`restart of ${id} refused: ${refusal}`);
  if (isReviewId(id)) return restartReview({ orm, client: temporal.client, taskQueue }, id, request, deadlineMs);
  const start = await startOf(orm, id, taskQueue);
  if (!start) throw new Error(`${id}: no charge, payout, refund, dispute or settlement batch has this id (only those and payment reviews, review-<id>, can be restarted)`);
  const kind = start.type.replace('Workflow', '');
  if (kind === 'settlement' && start.status === 'failed') throw new Error(`settlement ${id} is failed: its money went back to available (the next settlement run sweeps it, or settlements retry while its run waits); nothing to restart`);
  if (!OPEN[kind].includes(start.status)) throw new Error(`${kind} ${id} is ${start.status}: it is finished, nothing to restart`);
  const handle = temporal.client.workflow.getHandle(id);
  const execution = await withinDeadline(temporal.client, deadlineMs, () => handle.describe()).then(
    (d) => d.status.name as string,
    (error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return 'NOT_FOUND';
      throw error;
    },
  );
  if (execution === 'RUNNING') throw new Error(`${kind} ${id}: its workflow is running; nothing to restart (payments stuck says why it waits)`);
  const options = start.options;
  const started = await withinDeadline(temporal.client, deadlineMs, () =>
    temporal.client.workflow.start(start.type, {
      ...options,
      args: [{ ...options.args[0], restart: { ...request, before: { status: start.status, workflow: execution } } }],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      staticSummary: `operator restart of ${id} (${start.status}; the previous workflow ${execution})`,
    }),
  );
  return { id, type: kind, status: start.status, previous_workflow: execution, restarted: true, run_id: started.firstExecutionRunId };
}
