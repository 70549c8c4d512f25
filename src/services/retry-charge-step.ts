import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { withinDeadline } from '../temporal/deadline';
import type { TemporalHandle } from '../temporal/connection';
import { retryStepUpdate } from '../../workflows/messages';
import { cliSender } from './operator-errors';

/**
 * Operator action (`charges retry txn_… --reason TEXT`): asks a charge workflow that gave up on a
 * database step to try it again. The workflow validates the request (a reason; it must be waiting
 * for an operator) and answers at once; the step's outcome shows in `chargeAttention`.
 */
export async function retryChargeStep(temporal: TemporalHandle, chargeId: string, reason: string, deadlineMs = 10_000, operator: string = cliSender(), batchId?: string) {
  try {
    const result = await withinDeadline(temporal.client, deadlineMs, () =>
      temporal.client.workflow.getHandle(chargeId).executeUpdate(retryStepUpdate, { args: [{ reason, by: 'operator', operator, ...(batchId ? { batch_id: batchId } : {}) }] }),
    );
    return { id: chargeId, step: result.step, retried_by: result.by, reason };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      // Also what the server answers for a closed run.
      const closed = await temporal.client.workflow.getHandle(chargeId).describe().then((d) => d.status.name, () => null);
      throw new Error(closed ? `charge ${chargeId}: its workflow is closed (${closed}); nothing to retry` : `charge ${chargeId} has no workflow`);
    }
    if (error instanceof WorkflowUpdateFailedError) throw new Error(error.cause?.message ?? error.message);
    throw error;
  }
}
