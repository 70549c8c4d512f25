import Router from '@koa/router';
import { ApiError } from '../../domain/errors';
import { settlementJson } from '../../domain/settlement';
import { listSettlementEntries } from '../../persistence/settlements/settlement-entries-store';
import { listSettlements } from '../../persistence/settlements/settlement-list-store';
import { findSettlement } from '../../persistence/settlements/settlement-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { renderListText } from '../../services/list-filters';
import { SETTLEMENT_LIST } from '../../services/payment-lists';
import { requireScope } from '../middleware/auth';
import { pathId } from '../path-id';
import { parseEntryPage, renderEntryPage } from '../settlement-entry-page';

/**
 * Settlement batches of the caller's merchant in the listener's environment (scope
 * `settlements:read`): the list (newest first), one batch, and the ledger postings it swept. Another
 * merchant's or the other environment's batch is 404 `not_found`.
 */
export function settlementRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  const caller = (ctx: { state: Record<string, unknown> }) => ctx.state.caller as Caller;

  router.get('/v1/settlements', requireScope('settlements:read'), async (ctx) => {
    const filters = SETTLEMENT_LIST.parse({ ...ctx.query });
    const rows = await listSettlements(deps.orm, caller(ctx), SETTLEMENT_LIST.pageSql(filters));
    ctx.type = 'application/json';
    ctx.body = renderListText(rows, filters.limit, settlementJson);
  });

  router.get('/v1/settlements/:id', requireScope('settlements:read'), async (ctx) => {
    const id = pathId(ctx.params, 'settlement');
    const batch = await findSettlement(deps.orm, caller(ctx), id);
    if (!batch) throw new ApiError('not_found', `No settlement ${id}.`, { param: 'id' });
    ctx.type = 'application/json';
    ctx.body = settlementJson(batch);
  });

  router.get('/v1/settlements/:id/entries', requireScope('settlements:read'), async (ctx) => {
    const id = pathId(ctx.params, 'settlement');
    const page = parseEntryPage({ ...ctx.query });
    const batch = await findSettlement(deps.orm, caller(ctx), id);
    if (!batch) throw new ApiError('not_found', `No settlement ${id}.`, { param: 'id' });
    ctx.body = renderEntryPage(await listSettlementEntries(deps.orm, id, page), page.limit);
  });

  return router;
}
