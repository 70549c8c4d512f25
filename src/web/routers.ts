import type Router from '@koa/router';
import type { ServiceDeps } from '../services/context';
import type { WebOptions } from './web-options';
import { checkoutRouter } from './checkout/router';
import { portalRouter } from './portal/router';

/**
 * Every part of the web port (issue 21), each its own router in its own folder: hosted checkout
 * (`/checkout`), the merchant portal (`/`). Mounted in this order by src/web/app.ts; a part adds one
 * line here. The API reference (`/docs`) is on its own origin since issue 47 (src/web/docs/app.ts).
 */
export function webRouters(deps: ServiceDeps, options: WebOptions): Router[] {
  return [checkoutRouter(deps), portalRouter(deps, options)];
}
