import Router from '@koa/router';
import { balanceTransactionJson, balanceTransactionOf } from '../../domain/balance-transaction';
import { listBalanceTransactions } from '../../persistence/balance-transaction-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { renderListText } from '../list-filters';
import { requireScope } from '../middleware/auth';
import { parseBalanceTransactionQuery } from '../schemas/list-balance-transactions';

/**
 * GET /v1/balance-transactions: every posting that moved the caller's available or reserved money,
 * in the key's environment, newest first (src/domain/balance-transaction.ts), as a list of INTERFACE.md.
 * Amounts are exact integer literals, as GET /v1/balances writes them.
 */
export function balanceTransactionRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  router.get('/v1/balance-transactions', requireScope('balances:read'), async (ctx) => {
    const query = parseBalanceTransactionQuery({ ...ctx.query });
    const rows = await listBalanceTransactions(deps.orm, ctx.state.caller as Caller, query);
    ctx.type = 'application/json';
    ctx.body = renderListText(rows.map(balanceTransactionOf), query.limit, balanceTransactionJson);
  });
  return router;
}
