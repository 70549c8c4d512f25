import Router from '@koa/router';
import { deliveryJson, type DeliveryStatus } from '../../domain/webhook-delivery';
import { ApiError } from '../../domain/errors';
import { findDelivery, listDeliveries } from '../../persistence/webhooks/webhook-delivery-store';
import { findEndpoint } from '../../persistence/webhooks/webhook-endpoint-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { replayDeliveryOnce } from '../../services/replay-delivery';
import { apiActor, notFound } from '../../services/webhook-endpoints';
import { requireScope } from '../middleware/auth';
import { parseDeliveryListQuery } from '../schemas/webhook-endpoints';
import { idempotencyKeyOf } from '../idempotency-key';
import { pathId } from '../path-id';
import { listCursor, renderList } from './list-page';

/**
 * An endpoint's deliveries (what failed and why; by `status`, `event_type`, `created_after` /
 * `created_before`, combinable, sent again with each `cursor`), one delivery with its attempts, and
 * replay (SPEC 4.9; audited as `webhook_delivery.replay` by `api_key:<key id>`).
 */
export function webhookDeliveryRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  const caller = (ctx: { state: Record<string, unknown> }) => ctx.state.caller as Caller;

  router.get('/v1/webhook-endpoints/:id/deliveries', requireScope('webhooks:read'), async (ctx) => {
    const endpointId = pathId(ctx.params, 'webhookEndpoint');
    const q = parseDeliveryListQuery({ ...ctx.query });
    const after = listCursor(q.cursor, 'delivery');
    if (!(await findEndpoint(deps.orm, caller(ctx), endpointId))) throw notFound(endpointId);
    const limit = q.limit ? Number(q.limit) : 10;
    const filters = { eventTypes: q.eventTypes, createdAfter: q.createdAfter, createdBefore: q.createdBefore };
    const rows = await listDeliveries(deps.orm, caller(ctx), endpointId, (q.status as DeliveryStatus | undefined) ?? null, limit, after, filters);
    ctx.body = renderList(rows, limit, (r) => deliveryJson(r));
  });

  router.get('/v1/webhook-deliveries/:id', requireScope('webhooks:read'), async (ctx) => {
    const id = pathId(ctx.params, 'delivery');
    const found = await findDelivery(deps.orm, caller(ctx), id);
    if (!found) throw new ApiError('not_found', `No webhook delivery ${id}.`, { param: 'id' });
    ctx.body = deliveryJson(found.delivery, found.attempts);
  });

  // Idempotency-Key is optional here: with it, a retried replay request answers the first replay.
  router.post('/v1/webhook-deliveries/:id/replay', requireScope('webhooks:write'), async (ctx) => {
    const actor = apiActor(caller(ctx), { id: ctx.state.requestId as string, method: ctx.method, path: ctx.path });
    const answer = await replayDeliveryOnce(deps, caller(ctx), pathId(ctx.params, 'delivery'), idempotencyKeyOf(ctx), actor);
    ctx.status = 202;
    ctx.type = 'application/json';
    ctx.body = answer.body;
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
  });

  return router;
}
