import { railAttemptsOf, withAttempts } from '../../persistence/partner/rail-attempts-store';
import Router from '@koa/router';
import { chargeJson } from '../../domain/charge';
import { memberSourceJson } from '../../support/raw-json';
import { ApiError } from '../../domain/errors';
import { findCharge } from '../../persistence/charges/charge-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { createCharge, requestHash } from '../../services/create-charge';
import { jsonBody } from '../middleware/json-body';
import { requireScope } from '../middleware/auth';
import { requireLiveRail } from '../middleware/live-rail';
import { validateCreateCharge } from '../schemas/create-charge';
import { check } from '../validate';
import { idempotencyKeyOf } from '../idempotency-key';
import { pathId } from '../path-id';

export function chargeRoutes(deps: ServiceDeps, bodyLimit: number): Router {
  const router = new Router();

  router.post('/v1/charges', requireScope('charges:write'), requireLiveRail(deps.liveRail), jsonBody(bodyLimit), async (ctx) => {
    const key = idempotencyKeyOf(ctx);
    if (!key) throw new ApiError('idempotency_key_required', 'Send an Idempotency-Key header (a fresh UUID per payment attempt).');
    const request = check(validateCreateCharge, ctx.state.body);
    const metadataJson = request.metadata === undefined ? undefined : memberSourceJson(ctx.state.rawBody, 'metadata', request.metadata);
    const hash = requestHash('POST', '/v1/charges', ctx.state.body);
    const answer = await createCharge(deps, ctx.state.caller as Caller, key, request, hash, ctx.state.requestId, metadataJson);
    ctx.status = answer.status;
    ctx.type = 'application/json';
    ctx.body = answer.body;
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
    const result = answer.replayed ? 'replayed' : answer.status === 200 ? 'accepted' : 'partner_timeout';
    deps.metrics?.chargeCreates.inc({ environment: (ctx.state.caller as Caller).environment, result });
  });

  router.get('/v1/charges/:id', requireScope('charges:read'), async (ctx) => {
    const charge = await findCharge(deps.orm, ctx.state.caller as Caller, pathId(ctx.params, 'charge'));
    if (!charge) throw new ApiError('not_found', `No charge ${ctx.params.id}.`, { param: 'id' });
    ctx.type = 'application/json';
    // Issue 46: a live charge's attempts at its partners (the one it follows, and any it failed over from); a sandbox one has none.
    ctx.body = charge.environment === 'live' ? withAttempts(chargeJson(charge), await railAttemptsOf(deps.orm.em.fork(), charge.id)) : chargeJson(charge);
  });

  return router;
}
