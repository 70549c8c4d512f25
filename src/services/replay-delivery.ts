import { ApiError } from '../domain/errors';
import type { ChangeActor } from '../domain/operator-action';
import { localFirstAttemptFor } from '../domain/webhook-first-attempt';
import { deliveryJson, type DeliveryRecord } from '../domain/webhook-delivery';
import { claimIdempotencyKey, completeIdempotencyKey, unlockIdempotencyKey } from '../persistence/idempotency-store';
import { findDelivery, insertReplay, markWorkflowsStarted } from '../persistence/webhooks/webhook-delivery-store';
import { findEndpoint } from '../persistence/webhooks/webhook-endpoint-store';
import { sqlStateOf } from '../persistence/db-errors';
import { newId } from '../support/new-id';
import { startDeliveryWorkflow } from '../temporal/delivery-start';
import type { Caller, ServiceDeps } from './context';
import { withTemporalDeadline } from './dependency-unavailable';
import { requestHash } from './create-charge';

/**
 * POST /v1/webhook-deliveries/{id}/replay: a new delivery (own id, own workflow, attempts from 1) of
 * the same stored event to the same endpoint, freshly signed when sent. A disabled endpoint must be
 * re-enabled first; nothing is sent to it. With an `actor` (the portal's, or the API request's), the
 * replay writes its `webhook_delivery.replay` audit row in the transaction that inserts it.
 */
export async function replayDelivery(deps: ServiceDeps, caller: Caller, id: string, replayId: string = newId('delivery'), actor?: ChangeActor): Promise<DeliveryRecord> {
  const found = await findDelivery(deps.orm, caller, id);
  if (!found) throw new ApiError('not_found', `No webhook delivery ${id}.`, { param: 'id' });
  const endpoint = await findEndpoint(deps.orm, caller, found.delivery.endpointId);
  if (!endpoint) throw new ApiError('not_found', `The endpoint of ${id} was deleted.`, { param: 'id' });
  if (endpoint.status !== 'active') {
    throw new ApiError('endpoint_disabled', `Endpoint ${endpoint.id} is disabled: enable it first (PATCH {"status":"active"}, or Enable in the portal), then replay.`);
  }
  const replay = await insertReplay(deps.orm, found.delivery, replayId, actor).catch((error: unknown) => {
    // The retention job deleted the delivery between the read above and this insert (it was past
    // WEBHOOK_DELIVERY_RETENTION): the foreign key of `replay_of` finds it gone. As if it had been gone at the read.
    if (sqlStateOf(error) === '23503' && /webhook_deliveries_replay_of_fkey/.test(String((error as Error).message))) throw new ApiError('not_found', `No webhook delivery ${id}.`, { param: 'id' });
    throw error;
  });
  // Should the start fail, the row stays pending: the start may have happened all the same (a
  // timeout), and a pending delivery without a confirmed workflow is started by a retry with the
  // same Idempotency-Key (same delivery id) or else by the outbox relay's sweep. Starting is
  // idempotent (workflow id = delivery id), so it is sent once either way.
  // Bounded like every API call on Temporal; a start that fails or times out leaves the replay
  // pending, and the relay's sweep starts it (a retry with the same key answers the same delivery).
  await withTemporalDeadline(deps.temporal, deps.temporalDeadlineMs, () =>
    startDeliveryWorkflow(deps.temporal.client, deps.taskQueue, {
      deliveryId: replay.id,
      eventId: replay.eventId,
      eventType: replay.eventType,
      endpointId: replay.endpointId,
      merchantId: replay.merchantId,
      environment: replay.environment,
      retryScheduleMs: deps.webhooks.retryScheduleMs,
      localFirstAttempt: localFirstAttemptFor(endpoint.timeoutSeconds),
    }),
  );
  await markWorkflowsStarted(deps.orm, [replay.id]);
  return replay;
}

/**
 * The replay request with an optional Idempotency-Key: the same key gives the first answer back
 * instead of a second replay (a retried request does not send the event twice). `actor`: see replayDelivery.
 */
export async function replayDeliveryOnce(deps: ServiceDeps, caller: Caller, id: string, key: string | undefined, actor?: ChangeActor): Promise<{ body: string; replayed: boolean }> {
  if (!key) return { body: JSON.stringify(deliveryJson(await replayDelivery(deps, caller, id, undefined, actor), [])), replayed: false };
  const scope = { merchantId: caller.merchantId, environment: caller.environment, key };
  const claim = await claimIdempotencyKey(deps.orm, scope, requestHash('POST', `/v1/webhook-deliveries/${id}/replay`, {}), newId('delivery'));
  if (claim.kind === 'replay') return { body: claim.body, replayed: true };
  if (claim.kind === 'in_use') throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  if (claim.kind === 'reused') throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
  try {
    const replay = await replayDelivery(deps, caller, id, claim.resourceId, actor);
    const stored = await completeIdempotencyKey(deps.orm, scope, 202, JSON.stringify(deliveryJson(replay, [])));
    return { body: stored.body, replayed: false };
  } catch (error) {
    await unlockIdempotencyKey(deps.orm, scope).catch(() => undefined);
    throw error;
  }
}
