import Router from '@koa/router';
import { disputeJson } from '../../domain/dispute';
import { ApiError } from '../../domain/errors';
import { findDispute, listDisputes } from '../../persistence/disputes/dispute-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { submitDisputeEvidence } from '../../services/submit-dispute-evidence';
import { renderListText } from '../../services/list-filters';
import { DISPUTE_LIST } from '../../services/payment-lists';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { pathId } from '../path-id';
import { validateDisputeEvidence } from '../schemas/dispute-evidence';
import { check } from '../validate';

/**
 * INTERFACE.md "Money movement": disputes of the caller's merchant and environment (GET one, the list)
 * and the merchant's evidence. Disputes are opened by the sandbox control
 * (routes/sandbox-disputes.ts); the live listener serves these routes too (it has no disputes yet).
 */
export function disputeRoutes(deps: ServiceDeps, bodyLimit: number): Router {
  const router = new Router();
  const caller = (ctx: { state: Record<string, unknown> }) => ctx.state.caller as Caller;

  router.get('/v1/disputes', requireScope('disputes:read'), async (ctx) => {
    const filters = DISPUTE_LIST.parse({ ...ctx.query });
    const rows = await listDisputes(deps.orm, caller(ctx), DISPUTE_LIST.pageSql(filters));
    ctx.type = 'application/json';
    ctx.body = renderListText(rows, filters.limit, disputeJson);
  });

  router.get('/v1/disputes/:id', requireScope('disputes:read'), async (ctx) => {
    const id = pathId(ctx.params, 'dispute');
    const dispute = await findDispute(deps.orm, caller(ctx), id);
    if (!dispute) throw new ApiError('not_found', `No dispute ${id}.`, { param: 'id' });
    ctx.type = 'application/json';
    ctx.body = disputeJson(dispute);
  });

  // Not an Idempotency-Key create: evidence is accepted once, and a repeat is 409 evidence_not_accepted.
  router.post('/v1/disputes/:id/evidence', requireScope('disputes:write'), jsonBody(bodyLimit), async (ctx) => {
    const id = pathId(ctx.params, 'dispute');
    const request = check(validateDisputeEvidence, ctx.state.body);
    ctx.type = 'application/json';
    ctx.body = await submitDisputeEvidence(deps, caller(ctx), id, request.text);
  });

  return router;
}
