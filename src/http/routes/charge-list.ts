import Router from '@koa/router';
import { chargeJson } from '../../domain/charge';
import { listCharges } from '../../persistence/charges/charge-list-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { renderListText } from '../../services/list-filters';
import { CHARGE_LIST } from '../../services/payment-lists';
import { requireScope } from '../middleware/auth';

/** GET /v1/charges: the caller's charges, newest first, with the list filters of INTERFACE.md (list-filters.ts). */
export function chargeListRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  router.get('/v1/charges', requireScope('charges:read'), async (ctx) => {
    const filters = CHARGE_LIST.parse({ ...ctx.query });
    const rows = await listCharges(deps.orm, ctx.state.caller as Caller, CHARGE_LIST.pageSql(filters));
    ctx.type = 'application/json';
    ctx.body = renderListText(rows, filters.limit, chargeJson);
  });
  return router;
}
