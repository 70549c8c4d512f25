import Router from '@koa/router';
import { readBalances } from '../../persistence/ledger';
import type { Caller, ServiceDeps } from '../../services/context';
import { requireScope } from '../middleware/auth';

export function balanceRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  router.get('/v1/balances', requireScope('balances:read'), async (ctx) => {
    const caller = ctx.state.caller as Caller;
    const figures = await readBalances(deps.orm.em.fork(), caller.merchantId, caller.environment);
    ctx.body = { object: 'balance', livemode: caller.environment === 'live', ...figures };
  });
  return router;
}
