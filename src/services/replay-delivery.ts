import { ApiError } from '../domain/errors';
import type { DeliveryRecord } from '../domain/webhook-delivery';
import { abandonDelivery, findDelivery, insertReplay } from '../persistence/webhook-delivery-store';
import { findEndpoint } from '../persistence/webhook-endpoint-store';
import { newId } from '../support/new-id';
import { startDeliveryWorkflow } from '../temporal/delivery-start';
import type { Caller, ServiceDeps } from './context';

/**
 * POST /v1/webhook-deliveries/{id}/replay: a new delivery (own id, own workflow, attempts from 1) of
 * the same stored event to the same endpoint, freshly signed when sent. A disabled endpoint must be
 * re-enabled first; nothing is sent to it.
 */
export async function replayDelivery(deps: ServiceDeps, caller: Caller, id: string): Promise<DeliveryRecord> {
  const found = await findDelivery(deps.orm, caller, id);
  if (!found) throw new ApiError('not_found', `No webhook delivery ${id}.`, { param: 'id' });
  const endpoint = await findEndpoint(deps.orm, caller, found.delivery.endpointId);
  if (!endpoint) throw new ApiError('not_found', `The endpoint of ${id} was deleted.`, { param: 'id' });
  if (endpoint.status !== 'active') {
    throw new ApiError('endpoint_disabled', `Endpoint ${endpoint.id} is disabled: PATCH it with {"status":"active"} first, then replay.`);
  }
  const replay = await insertReplay(deps.orm, found.delivery, newId('delivery'));
  try {
    await startDeliveryWorkflow(deps.temporal.client, deps.taskQueue, {
      deliveryId: replay.id,
      eventId: replay.eventId,
      eventType: replay.eventType,
      endpointId: replay.endpointId,
      merchantId: replay.merchantId,
      environment: replay.environment,
      retryScheduleMs: deps.webhooks.retryScheduleMs,
    });
  } catch (error) {
    // Not scheduled: the row must not claim a delivery is under way.
    await abandonDelivery(deps.orm, replay.id, 'replay could not be scheduled; try again');
    throw error;
  }
  return replay;
}
