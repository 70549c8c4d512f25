import Router from '@koa/router';
import { readBalances, type BalanceAmount } from '../../persistence/ledger/account-balances';
import type { Caller, ServiceDeps } from '../../services/context';
import { requireScope } from '../middleware/auth';

/**
 * A list of balance amounts as JSON text. Amounts are written as exact integer literals from their
 * decimal digits (BigInt checks they are integers): a balance may exceed Number.MAX_SAFE_INTEGER,
 * which a trip through Number() would round.
 */
function amountsJson(amounts: BalanceAmount[]): string {
  return `[${amounts.map((a) => `{"currency":${JSON.stringify(a.currency)},"amount":${BigInt(a.amount).toString()}}`).join(',')}]`;
}

export function balanceRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  router.get('/v1/balances', requireScope('balances:read'), async (ctx) => {
    const caller = ctx.state.caller as Caller;
    const figures = await readBalances(deps.orm.em.fork(), caller.merchantId, caller.environment);
    ctx.type = 'application/json';
    ctx.body = `{"object":"balance","livemode":${caller.environment === 'live'},"available":${amountsJson(figures.available)},"pending":${amountsJson(figures.pending)},"reserved":${amountsJson(figures.reserved)}}`;
  });
  return router;
}
