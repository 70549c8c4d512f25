import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';
import { payoutJson } from '../domain/payout';
import type { Orm } from '../persistence/orm';
import { loadPayout } from '../persistence/payouts/payout-store';
import type { TemporalHandle } from '../temporal/connection';
import { decidePayoutUpdate } from '../../workflows/payout-messages';
import { withTemporalDeadline } from './dependency-unavailable';
import { cliSender, operatorError } from './operator-errors';

/**
 * Operator action (`payouts approve|reject po_… --reason TEXT`): sends the `decidePayout` update to
 * the payout's workflow, which validates it (a reason; the payout must be held for review, with no
 * decision yet) and answers once the decision is written (approve: `pending`, on to the rail; reject:
 * `failed` with `declined`). Answers the payout object, serialised, as the API shows it.
 */
export async function decidePayout(
  orm: Orm,
  temporal: TemporalHandle,
  payoutId: string,
  decision: 'approve' | 'reject',
  reason: string,
  deadlineMs: number = DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS,
  decidedBy: string = cliSender(),
  batchId?: string,
): Promise<string> {
  const payout = await loadPayout(orm, payoutId);
  if (!payout) throw new Error(`payout ${payoutId} does not exist`);
  if (payout.status !== 'held_for_review') throw new Error(`payout ${payoutId} is ${payout.status}: only a payout held for review can be approved or rejected`);
  const deadline = Date.now() + deadlineMs;
  try {
    await withTemporalDeadline(temporal, deadlineMs, () =>
      temporal.client.workflow.getHandle(payoutId).executeUpdate(decidePayoutUpdate, { args: [{ decision, reason, operator: decidedBy, ...(batchId ? { batch_id: batchId } : {}) }] }),
    );
  } catch (error) {
    throw operatorError(payoutId, decision === 'approve' ? 'approved' : 'rejected', error, deadlineMs, deadline);
  }
  // The workflow answers the payout's state only (no recipient data in history): the object is read back.
  return payoutJson((await loadPayout(orm, payoutId))!);
}
