import { ServiceError, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { chargeJson, type ChargeRecord } from '../domain/charge';
import { Charge } from '../persistence/entities';
import { rowToRecord } from '../persistence/charges/charge-mapping';
import type { Orm } from '../persistence/orm';
import { reversalStartOptions } from '../temporal/charge-start';
import type { TemporalHandle } from '../temporal/connection';
import type { chargeReversalWorkflow } from '../../workflows/charge-reversal';
import { isTemporalUnavailable, withTemporalDeadline } from './dependency-unavailable';
import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';
import { reverseLiveCharge } from './reverse-live-charge';

/** Who reverses and why (the audit log); `batch_id` for a bulk run. */
export interface OperatorRequest {
  operator: string;
  reason: string;
  batch_id?: string;
}

/** The reversal did not finish within the deadline; if it started, it keeps running. */
export class ReversalPendingError extends Error {
  constructor(chargeId: string, deadlineMs: number) {
    super(
      `the reversal of ${chargeId} did not finish within ${deadlineMs / 1000} s (Temporal or the payment workers may be unavailable). ` +
        `If it started, it keeps running: run the same command again to wait for its outcome, or open workflow ${chargeId} in the Temporal UI.`,
    );
    this.name = 'ReversalPendingError';
  }
}

/** Starts the reversal run, or joins the one already running under the charge id (a repeated command). */
async function reversalRun(temporal: TemporalHandle, taskQueue: string, charge: ChargeRecord, request: OperatorRequest): Promise<WorkflowHandle<typeof chargeReversalWorkflow>> {
  try {
    return await temporal.client.workflow.start<typeof chargeReversalWorkflow>('chargeReversalWorkflow', reversalStartOptions(charge, taskQueue, new Date().toISOString(), request));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const running = temporal.client.workflow.getHandle<typeof chargeReversalWorkflow>(charge.id);
    if ((await running.describe()).type !== 'chargeReversalWorkflow') throw error;
    return running;
  }
}

/**
 * Operator action (`charges reverse txn_… --reason TEXT`): reverse a succeeded charge. A live one goes
 * back through the partner as a refund of what is left (src/services/reverse-live-charge.ts; answers
 * the refund object). A sandbox one runs `chargeReversalWorkflow` as a new run under the
 * charge's own workflow id, and waits for it, at most `deadlineMs` (then ReversalPendingError; the
 * run goes on, and the same command later joins it). Answers the charge object, serialised.
 */
export async function reverseCharge(
  orm: Orm,
  temporal: TemporalHandle,
  taskQueue: string,
  chargeId: string,
  request: OperatorRequest,
  deadlineMs: number = DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS,
): Promise<string> {
  const row = await orm.em.fork().findOne(Charge, { id: chargeId });
  if (!row) throw new Error(`charge ${chargeId} does not exist`);
  const charge = rowToRecord(row);
  if (charge.status !== 'succeeded') throw new Error(`charge ${chargeId} is ${charge.status}; only a succeeded charge can be reversed`);
  // Issue 45: a live charge's money goes back through the partner, as a refund (answered: the refund).
  if (charge.environment === 'live') return reverseLiveCharge(orm, temporal, taskQueue, charge, request);
  const deadline = Date.now() + deadlineMs;
  try {
    // The run answers the charge's state only (no customer data in history): the object is read back.
    await withTemporalDeadline(temporal, deadlineMs, async () => (await reversalRun(temporal, taskQueue, charge, request)).result());
  } catch (error) {
    // The result's long poll cut by our deadline can surface as a ServiceError whose gRPC cause is
    // not DEADLINE_EXCEEDED (seen under load): any Temporal error at the deadline means "still pending".
    const atDeadline = error instanceof ServiceError && Date.now() >= deadline - 100;
    if (isTemporalUnavailable(error) || atDeadline) throw new ReversalPendingError(chargeId, deadlineMs);
    throw error;
  }
  const reversed = await orm.em.fork().findOne(Charge, { id: chargeId });
  return chargeJson(rowToRecord(reversed!));
}
