import Router from '@koa/router';
import { listBanks, listCountries, listCurrencies, listMomoNetworks } from '../../persistence/reference-store';
import type { ServiceDeps } from '../../services/context';
import { requireScope } from '../middleware/auth';

export function referenceRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  const lists = {
    'momo-networks': listMomoNetworks,
    banks: listBanks,
    currencies: listCurrencies,
    countries: listCountries,
  } as const;
  for (const [name, load] of Object.entries(lists)) {
    router.get(`/v1/reference/${name}`, requireScope('reference:read'), async (ctx) => {
      const data = await load(deps.orm);
      ctx.body = { object: 'list', data, has_more: false };
    });
  }
  return router;
}
