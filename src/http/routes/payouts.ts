import { railAttemptsOf, withAttempts } from '../../persistence/partner/rail-attempts-store';
import Router from '@koa/router';
import { ApiError } from '../../domain/errors';
import { payoutJson } from '../../domain/payout';
import { listPayouts } from '../../persistence/payouts/payout-list-store';
import { findPayout } from '../../persistence/payouts/payout-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { createPayout } from '../../services/create-payout';
import { requestHash } from '../../services/create-charge';
import { memberSourceJson } from '../../support/raw-json';
import { idempotencyKeyOf } from '../idempotency-key';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { requireLiveRail } from '../middleware/live-rail';
import { pathId } from '../path-id';
import { validateCreatePayout } from '../schemas/create-payout';
import { renderListText } from '../../services/list-filters';
import { PAYOUT_LIST } from '../../services/payment-lists';
import { check } from '../validate';

/** INTERFACE.md "Money movement": payouts of the caller's merchant and environment. */
export function payoutRoutes(deps: ServiceDeps, bodyLimit: number): Router {
  const router = new Router();
  const caller = (ctx: { state: Record<string, unknown> }) => ctx.state.caller as Caller;

  router.post('/v1/payouts', requireScope('payouts:write'), requireLiveRail(deps.liveRail), jsonBody(bodyLimit), async (ctx) => {
    const key = idempotencyKeyOf(ctx);
    if (!key) throw new ApiError('idempotency_key_required', 'Send an Idempotency-Key header (a fresh UUID per payout).');
    const request = check(validateCreatePayout, ctx.state.body);
    const metadataJson = request.metadata === undefined ? undefined : memberSourceJson(ctx.state.rawBody, 'metadata', request.metadata);
    const hash = requestHash('POST', '/v1/payouts', ctx.state.body);
    const answer = await createPayout(deps, caller(ctx), key, request, hash, metadataJson);
    ctx.status = answer.status;
    ctx.type = 'application/json';
    ctx.body = answer.body;
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
  });

  router.get('/v1/payouts', requireScope('payouts:read'), async (ctx) => {
    const filters = PAYOUT_LIST.parse({ ...ctx.query });
    const rows = await listPayouts(deps.orm, caller(ctx), PAYOUT_LIST.pageSql(filters));
    // Each payout as its JSON text (metadata byte for byte as sent), so the list is assembled as text.
    ctx.type = 'application/json';
    ctx.body = renderListText(rows, filters.limit, payoutJson);
  });

  router.get('/v1/payouts/:id', requireScope('payouts:read'), async (ctx) => {
    const payout = await findPayout(deps.orm, caller(ctx), pathId(ctx.params, 'payout'));
    if (!payout) throw new ApiError('not_found', `No payout ${ctx.params.id}.`, { param: 'id' });
    ctx.type = 'application/json';
    // Issue 46: a live payout's attempts at its partners (the one it follows, and any it failed over from); a sandbox one has none.
    ctx.body = payout.environment === 'live' ? withAttempts(payoutJson(payout), await railAttemptsOf(deps.orm.em.fork(), payout.id)) : payoutJson(payout);
  });

  return router;
}
