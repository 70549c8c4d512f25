import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';
import { liveReversalRefusal } from '../domain/live-reversal';
import { payoutJson } from '../domain/payout';
import type { Orm } from '../persistence/orm';
import { loadPayout } from '../persistence/payouts/payout-store';
import type { TemporalHandle } from '../temporal/connection';
import { payoutReversalOperation } from '../temporal/payout-reversal-start';
import { reversePayoutUpdate } from '../../workflows/payout-messages';
import { withTemporalDeadline } from './dependency-unavailable';
import { cliSender, operatorError } from './operator-errors';

/**
 * Operator action (`payouts reverse po_… --reason TEXT`): reverses a succeeded sandbox payout (a live
 * one is refused before the update: src/domain/live-reversal.ts; the amount
 * back to available, the fee kept, `payout.reversed`). Sends the `reversePayout` update with
 * update-with-start: to the payout's run while it is open, else to a new run of payoutWorkflow under
 * the payout's id (src/temporal/payout-reversal-start.ts), which reads the payout from the database.
 * The workflow validates the request and answers once the reversal is written. Answers the payout
 * object, serialised.
 */
export async function reversePayout(
  orm: Orm,
  temporal: TemporalHandle,
  taskQueue: string,
  payoutId: string,
  reason: string,
  deadlineMs: number = DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS,
  requestedBy: string = cliSender(),
  batchId?: string,
): Promise<string> {
  const payout = await loadPayout(orm, payoutId);
  if (!payout) throw new Error(`payout ${payoutId} does not exist`);
  if (payout.environment === 'live') throw new Error(liveReversalRefusal('payout', payoutId));
  if (payout.status !== 'succeeded') throw new Error(`payout ${payoutId} is ${payout.status}: only a succeeded payout can be reversed`);
  const deadline = Date.now() + deadlineMs;
  try {
    await withTemporalDeadline(temporal, deadlineMs, () =>
      temporal.client.workflow.executeUpdateWithStart(reversePayoutUpdate, {
        args: [{ reason, operator: requestedBy, ...(batchId ? { batch_id: batchId } : {}) }],
        startWorkflowOperation: payoutReversalOperation(payout, taskQueue),
      }),
    );
  } catch (error) {
    throw operatorError(payoutId, 'reversed', error, deadlineMs, deadline);
  }
  return payoutJson((await loadPayout(orm, payoutId))!);
}
