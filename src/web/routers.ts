import type Router from '@koa/router';
import type { ServiceDeps } from '../services/context';
import type { WebOptions } from './web-options';
import { checkoutRouter } from './checkout/router';
import { docsRouter } from './docs/router';
import { portalRouter } from './portal/router';

/**
 * Every part of the web port (issue 21), each its own router in its own folder: the API reference
 * (`/docs`), the merchant portal (`/`), hosted checkout (`/checkout`). Mounted in this order by
 * src/web/app.ts; a part adds one line here.
 */
export function webRouters(deps: ServiceDeps, options: WebOptions): Router[] {
  return [docsRouter(deps, options), checkoutRouter(deps), portalRouter(deps, options)];
}
