import Router from '@koa/router';
import { endpointJson, type WebhookEndpointRecord } from '../../domain/webhook-endpoint';
import { deliveryJson } from '../../domain/webhook-delivery';
import { fifoWaitingOf } from '../../persistence/webhooks/webhook-fifo-store';
import { skipFifoEvent } from '../../services/skip-fifo-event';
import { ApiError } from '../../domain/errors';
import { findEndpoint, listEndpoints } from '../../persistence/webhooks/webhook-endpoint-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { apiActor, createEndpoint, notFound, patchEndpoint, removeEndpoint, rotateSecret } from '../../services/webhook-endpoints';
import { jsonBody } from '../middleware/json-body';
import { requireScope } from '../middleware/auth';
import { parseEndpointListQuery, validateCreateEndpoint, validateRecoverEndpoint, validateSkipEvent, validateUpdateEndpoint } from '../schemas/webhook-endpoints';
import { recoverEndpointOnce } from '../../services/recover-endpoint';
import { findRecovery } from '../../persistence/webhooks/webhook-recovery-store';
import { recoveryJson } from '../../domain/webhook-recovery';
import { idempotencyKeyOf } from '../idempotency-key';
import { check } from '../validate';
import { pathId } from '../path-id';
import { listCursor, renderList } from './list-page';

/** SPEC 4.6–4.8: endpoints of the caller's merchant and environment; recovery of what an endpoint missed (issue 49). */
export function webhookEndpointRoutes(deps: ServiceDeps, bodyLimit: number): Router {
  const router = new Router();
  const caller = (ctx: { state: Record<string, unknown> }) => ctx.state.caller as Caller;
  /** The request as the change's audit row names it (apiActor). */
  const actor = (ctx: { state: Record<string, unknown>; method: string; path: string }) =>
    apiActor(caller(ctx), { id: ctx.state.requestId as string, method: ctx.method, path: ctx.path });
  /** The endpoint with its FIFO queue's count and since when (issue 49: `health.waiting_events`, `health.waiting_since`). */
  const withWaiting = async (endpoint: WebhookEndpointRecord, secret?: string) => endpointJson(endpoint, secret, (await fifoWaitingOf(deps.orm, [endpoint.id])).get(endpoint.id));

  router.post('/v1/webhook-endpoints', requireScope('webhooks:write'), jsonBody(bodyLimit), async (ctx) => {
    const { endpoint, secret } = await createEndpoint(deps, caller(ctx), check(validateCreateEndpoint, ctx.state.body), actor(ctx));
    ctx.status = 201;
    ctx.body = endpointJson(endpoint, secret);
  });

  router.get('/v1/webhook-endpoints', requireScope('webhooks:read'), async (ctx) => {
    const q = parseEndpointListQuery({ ...ctx.query });
    const limit = q.limit ? Number(q.limit) : 10;
    const rows = await listEndpoints(deps.orm, caller(ctx), limit, listCursor(q.cursor, 'webhookEndpoint'));
    const waiting = await fifoWaitingOf(deps.orm, rows.map((r) => r.id));
    ctx.body = renderList(rows, limit, (r) => endpointJson(r, undefined, waiting.get(r.id)));
  });

  router.get('/v1/webhook-endpoints/:id', requireScope('webhooks:read'), async (ctx) => {
    const id = pathId(ctx.params, 'webhookEndpoint');
    const endpoint = await findEndpoint(deps.orm, caller(ctx), id);
    if (!endpoint) throw notFound(id);
    ctx.body = await withWaiting(endpoint);
  });

  router.patch('/v1/webhook-endpoints/:id', requireScope('webhooks:write'), jsonBody(bodyLimit), async (ctx) => {
    const id = pathId(ctx.params, 'webhookEndpoint');
    const request = check(validateUpdateEndpoint, ctx.state.body);
    if (Object.keys(request).length === 0) throw new ApiError('invalid_request', 'Send at least one field to change.');
    ctx.body = await withWaiting(await patchEndpoint(deps, caller(ctx), id, request, actor(ctx)));
  });

  router.delete('/v1/webhook-endpoints/:id', requireScope('webhooks:write'), async (ctx) => {
    const id = pathId(ctx.params, 'webhookEndpoint');
    await removeEndpoint(deps, caller(ctx), id, actor(ctx));
    ctx.body = { id, object: 'webhook_endpoint', deleted: true };
  });

  router.post('/v1/webhook-endpoints/:id/rotate-secret', requireScope('webhooks:write'), async (ctx) => {
    const { endpoint, secret } = await rotateSecret(deps, caller(ctx), pathId(ctx.params, 'webhookEndpoint'), actor(ctx));
    ctx.body = await withWaiting(endpoint, secret);
  });

  // Issue 49, FIFO: the delivery of event `sequence` held in the endpoint's queue is skipped (audited
  // as `webhook_delivery.skip`); the events behind it go on. A repeat answers the skipped delivery again.
  router.post('/v1/webhook-endpoints/:id/skip', requireScope('webhooks:write'), jsonBody(bodyLimit), async (ctx) => {
    const id = pathId(ctx.params, 'webhookEndpoint');
    const request = check(validateSkipEvent, ctx.state.body);
    ctx.body = deliveryJson((await skipFifoEvent(deps, caller(ctx), id, request.sequence, actor(ctx))).delivery);
  });

  // Issue 49: every failed or skipped event since a time, sent again by one tracked recovery (audited
  // as `webhook_endpoint.recover`). Idempotency-Key is optional: with it, a retried request answers the first recovery.
  router.post('/v1/webhook-endpoints/:id/recover', requireScope('webhooks:write'), jsonBody(bodyLimit), async (ctx) => {
    const id = pathId(ctx.params, 'webhookEndpoint');
    const request = check(validateRecoverEndpoint, ctx.state.body);
    const answer = await recoverEndpointOnce(deps, caller(ctx), id, request.since, idempotencyKeyOf(ctx), actor(ctx));
    ctx.status = 202;
    ctx.type = 'application/json';
    ctx.body = answer.body;
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
  });

  router.get('/v1/webhook-endpoints/:id/recoveries/:rid', requireScope('webhooks:read'), async (ctx) => {
    const id = pathId(ctx.params, 'webhookEndpoint');
    const rid = pathId(ctx.params, 'webhookRecovery', 'rid');
    const recovery = await findRecovery(deps.orm, caller(ctx), id, rid);
    if (!recovery) throw new ApiError('not_found', `No webhook recovery ${rid} of endpoint ${id}.`, { param: 'rid' });
    ctx.body = recoveryJson(recovery);
  });

  return router;
}
