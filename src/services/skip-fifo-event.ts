import { ApiError } from '../domain/errors';
import type { ChangeActor } from '../domain/operator-action';
import type { DeliveryRecord } from '../domain/webhook-delivery';
import { findEndpoint, type Owner } from '../persistence/webhooks/webhook-endpoint-store';
import { skipFifoDelivery } from '../persistence/webhooks/webhook-fifo-store';
import type { Logger } from '../support/logger';
import { wakeFifoWorkflow } from '../temporal/fifo-start';
import { withTemporalDeadline } from './dependency-unavailable';
import type { RecoveryDeps } from './recover-endpoint';
import { notFound } from './webhook-endpoints';

/**
 * POST /v1/webhook-endpoints/{id}/skip {"sequence": N} (issue 49, FIFO), the portal's Skip and
 * `cli webhooks skip`: the delivery of event N held in the endpoint's queue is marked skipped (from
 * pending only) with its `webhook_delivery.skip` audit row, then the endpoint's FIFO workflow is told,
 * so a head waiting out its retry delay moves on at once.
 *
 * - Not the owner's endpoint: 404 `not_found` (param id). No delivery of that sequence in the
 *   endpoint's queue (never FIFO then, another endpoint's, or removed by retention): 404 `not_found`
 *   (param sequence).
 * - Delivered (or ended) already: 409 `delivery_not_waiting`, nothing written.
 * - Skipped already: the delivery as it is (a repeat writes nothing).
 *
 * The skip is committed before the workflow is told: should Temporal not answer, the workflow finds
 * it skipped at its next attempt at the latest (and sends nothing for it), and the answer is still
 * the skipped delivery; the failure is logged, and `workflowTold` is false (the CLI says so).
 */
export interface FifoSkip {
  delivery: DeliveryRecord;
  /** False when the skip was recorded but the endpoint's workflow could not be signalled (it finds the skip at its next attempt). */
  workflowTold: boolean;
}

export async function skipFifoEvent(deps: RecoveryDeps & { log?: Logger }, owner: Owner, endpointId: string, sequence: number, actor: ChangeActor): Promise<FifoSkip> {
  const endpoint = await findEndpoint(deps.orm, owner, endpointId);
  if (!endpoint) throw notFound(endpointId);
  const outcome = await skipFifoDelivery(deps.orm, owner, endpoint.id, sequence, actor);
  if (outcome.kind === 'none') {
    throw new ApiError('not_found', `No delivery of event sequence ${sequence} in the FIFO queue of endpoint ${endpoint.id}.`, { param: 'sequence' });
  }
  if (outcome.kind === 'not_waiting') {
    throw new ApiError('delivery_not_waiting', `The delivery of event sequence ${sequence} (${outcome.delivery.id}) is ${outcome.delivery.status}, not waiting: there is nothing to skip.`, { param: 'sequence' });
  }
  let workflowTold = true;
  if (outcome.kind === 'skipped') {
    await withTemporalDeadline(deps.temporal, deps.temporalDeadlineMs, () =>
      wakeFifoWorkflow(deps.temporal.client, deps.taskQueue, { endpointId: endpoint.id, merchantId: owner.merchantId, environment: owner.environment, retryScheduleMs: deps.webhooks.retryScheduleMs }, { sequence }),
    ).catch((error: unknown) => {
      workflowTold = false;
      deps.log?.warn({ endpointId: endpoint.id, sequence, error: error instanceof Error ? error.message : String(error) }, 'FIFO skip recorded; its workflow was not told (it finds the delivery skipped at its next attempt)');
    });
  }
  return { delivery: outcome.delivery, workflowTold };
}
