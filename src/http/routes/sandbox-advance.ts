import Router from '@koa/router';
import type { Scope } from '../../domain/scopes';
import type { Caller, ServiceDeps } from '../../services/context';
import { advanceSandboxTimer } from '../../services/sandbox-advance';

/**
 * `POST /v1/sandbox/advance/{id}` (INTERFACE "Sandbox controls"): fires the next timer of a charge,
 * payout, refund, settlement or dispute workflow now. Mounted on the sandbox listener only (the live
 * one answers 404). The scope is the resource's scope in ADVANCEABLE (services/sandbox-advance.ts).
 */
export function sandboxAdvanceRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  router.post('/v1/sandbox/advance/:id', async (ctx) => {
    const answer = await advanceSandboxTimer(deps, ctx.state.caller as Caller, ctx.params.id ?? '', ctx.state.scopes as Scope[]);
    ctx.body = { id: answer.id, fired: answer.fired, status: answer.status };
  });
  return router;
}
