import Router from '@koa/router';
import { ApiError } from '../../domain/errors';
import { refundJson, type RefundRecord } from '../../domain/refund';
import { findRefund, listRefunds } from '../../persistence/refunds/refund-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { requestHash } from '../../services/create-charge';
import { createRefund } from '../../services/create-refund';
import { memberSourceJson } from '../../support/raw-json';
import { idempotencyKeyOf } from '../idempotency-key';
import { REFUND_LIST } from '../../services/payment-lists';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { requireLiveRail } from '../middleware/live-rail';
import { pathId } from '../path-id';
import { validateCreateRefund } from '../schemas/create-refund';
import { check } from '../validate';
import { renderList } from './list-page';

/**
 * The list envelope (renderList) with each refund as its own serialised text, so metadata keeps the
 * key order it was sent in, as in GET /v1/refunds/{id} and the events.
 */
function refundListJson(rows: RefundRecord[], limit: number): string {
  const { object: _object, data: _data, ...page } = renderList(rows, limit, () => null);
  const data = rows.slice(0, limit).map(refundJson).join(',');
  return `{"object":"list","data":[${data}],${JSON.stringify(page).slice(1)}`;
}

export function refundRoutes(deps: ServiceDeps, bodyLimit: number): Router {
  const router = new Router();
  const caller = (ctx: { state: Record<string, unknown> }) => ctx.state.caller as Caller;

  router.post('/v1/refunds', requireScope('refunds:write'), requireLiveRail(deps.liveRail), jsonBody(bodyLimit), async (ctx) => {
    const key = idempotencyKeyOf(ctx);
    if (!key) throw new ApiError('idempotency_key_required', 'Send an Idempotency-Key header (a fresh UUID per refund attempt).');
    const request = check(validateCreateRefund, ctx.state.body);
    const metadataJson = request.metadata === undefined ? undefined : memberSourceJson(ctx.state.rawBody, 'metadata', request.metadata);
    const hash = requestHash('POST', '/v1/refunds', ctx.state.body);
    const answer = await createRefund(deps, caller(ctx), key, request, hash, metadataJson);
    ctx.status = answer.status;
    ctx.type = 'application/json';
    ctx.body = answer.body;
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
  });

  router.get('/v1/refunds', requireScope('refunds:read'), async (ctx) => {
    const filters = REFUND_LIST.parse({ ...ctx.query });
    const rows = await listRefunds(deps.orm, caller(ctx), REFUND_LIST.pageSql(filters));
    ctx.type = 'application/json';
    ctx.body = refundListJson(rows, filters.limit);
  });

  router.get('/v1/refunds/:id', requireScope('refunds:read'), async (ctx) => {
    const id = pathId(ctx.params, 'refund');
    const refund = await findRefund(deps.orm, caller(ctx), id);
    if (!refund) throw new ApiError('not_found', `No refund ${id}.`, { param: 'id' });
    ctx.type = 'application/json';
    ctx.body = refundJson(refund);
  });

  return router;
}
