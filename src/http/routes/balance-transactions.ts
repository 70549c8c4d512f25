import Router from '@koa/router';
import { balanceTransactionJson, balanceTransactionOf, parseBalanceTransactionId } from '../../domain/balance-transaction';
import { ApiError } from '../../domain/errors';
import { findBalanceTransaction, listBalanceTransactions } from '../../persistence/ledger/balance-transaction-store';
import { findCurrency } from '../../persistence/reference-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { renderListText } from '../../services/list-filters';
import { requireScope } from '../middleware/auth';
import { parseBalanceTransactionQuery } from '../schemas/list-balance-transactions';

/** Every answer for an id that is not one of the caller's items: malformed, unknown, another merchant's or environment's. */
const notFound = () =>
  new ApiError('not_found', 'No such balance transaction: its ids are "bt_" followed by a transfer id and a balance, as GET /v1/balance-transactions returns them.', { param: 'id' });

/**
 * GET /v1/balance-transactions: every posting that moved the caller's available or reserved money,
 * in the key's environment, newest first (src/domain/balance-transaction.ts), as a list of INTERFACE.md.
 * GET /v1/balance-transactions/{id}: one item, the same JSON. An id not of the shape this API gives
 * out is 404 without a query (as src/http/path-id.ts answers for resource ids); one of another
 * merchant or environment is 404 exactly like an unknown one. Amounts are exact integer literals, as
 * GET /v1/balances writes them.
 */
export function balanceTransactionRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  router.get('/v1/balance-transactions', requireScope('balances:read'), async (ctx) => {
    const query = parseBalanceTransactionQuery({ ...ctx.query });
    // Reference lists are cached per process: at most one query, ever.
    if (query.currency !== undefined && !(await findCurrency(deps.orm, query.currency))) {
      throw new ApiError('invalid_request', `Unknown currency "${query.currency}"; see GET /v1/reference/currencies.`, { param: 'currency' });
    }
    const rows = await listBalanceTransactions(deps.orm, ctx.state.caller as Caller, query);
    ctx.type = 'application/json';
    ctx.body = renderListText(rows.map(balanceTransactionOf), query.limit, balanceTransactionJson);
  });

  router.get('/v1/balance-transactions/:id', requireScope('balances:read'), async (ctx) => {
    const key = parseBalanceTransactionId(ctx.params.id ?? '');
    if (!key) throw notFound();
    const row = await findBalanceTransaction(deps.orm, ctx.state.caller as Caller, key);
    if (!row) throw notFound();
    ctx.type = 'application/json';
    ctx.body = balanceTransactionJson(balanceTransactionOf(row));
  });
  return router;
}
