import Router from '@koa/router';
import type { ServiceDeps } from '../../services/context';

/** 200 once PostgreSQL and Temporal answer, 503 otherwise. No authentication. */
export function healthRoutes(deps: ServiceDeps): Router {
  const router = new Router();
  router.get('/health', async (ctx) => {
    const checks = await Promise.allSettled([
      deps.orm.em.getConnection().execute('select 1'),
      deps.temporal.connection.workflowService.getSystemInfo({}),
    ]);
    const ok = checks.every((c) => c.status === 'fulfilled');
    ctx.status = ok ? 200 : 503;
    ctx.body = ok ? { status: 'ok' } : { status: 'unavailable', database: checks[0].status === 'fulfilled', temporal: checks[1].status === 'fulfilled' };
  });
  return router;
}
