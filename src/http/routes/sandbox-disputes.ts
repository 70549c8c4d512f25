import Router from '@koa/router';
import { ApiError } from '../../domain/errors';
import type { Caller, ServiceDeps } from '../../services/context';
import { requestHash } from '../../services/create-charge';
import { openDispute } from '../../services/open-dispute';
import { idempotencyKeyOf } from '../idempotency-key';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { pathId } from '../path-id';
import { validateOpenDispute } from '../schemas/open-dispute';
import { check } from '../validate';

/**
 * `POST /v1/sandbox/charges/{id}/disputes` (INTERFACE "Sandbox controls"): the cardholder disputes a
 * succeeded charge → `dispute.opened` (the amount held in reserved), then `dispute.evidence_required`.
 * Mounted on the sandbox listener only (the live one answers 404). Scope `disputes:write`; an
 * Idempotency-Key is required, as for every create that moves money.
 */
export function sandboxDisputeRoutes(deps: ServiceDeps, bodyLimit: number): Router {
  const router = new Router();
  router.post('/v1/sandbox/charges/:id/disputes', requireScope('disputes:write'), jsonBody(bodyLimit), async (ctx) => {
    const chargeId = pathId(ctx.params, 'charge');
    const key = idempotencyKeyOf(ctx);
    if (!key) throw new ApiError('idempotency_key_required', 'Send an Idempotency-Key header (a fresh UUID per dispute).');
    const request = check(validateOpenDispute, ctx.state.body);
    const hash = requestHash('POST', `/v1/sandbox/charges/${chargeId}/disputes`, ctx.state.body);
    const answer = await openDispute(deps, ctx.state.caller as Caller, key, chargeId, request, hash);
    ctx.status = answer.status;
    ctx.type = 'application/json';
    ctx.body = answer.body;
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
  });
  return router;
}
