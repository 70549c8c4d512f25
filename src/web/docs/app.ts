import Router from '@koa/router';
import type Koa from 'koa';
import type { ServiceDeps } from '../../services/context';
import { webAppOf } from '../app';
import type { WebOptions } from '../web-options';
import { docsRouter } from './router';

/**
 * The reference site on its own origin (issue 47, finding 9; DOCS_PORT, default 3003; DOCS_PUBLIC_URL):
 * the site runs a third-party bundle (Redoc) whose page allows `style-src 'unsafe-inline'`, so it
 * shares no origin with the portal: a flaw in it reaches neither the portal's cookies (host-only, sent
 * to the web port alone) nor its pages (another origin: no DOM, no same-origin fetch with the portal's
 * cookies). Same paths as before (`/docs`, `/docs/console`, `/docs/guides/…`, `/docs/assets/…`);
 * `/` redirects to `/docs`. Each page has the site's own CSP (./csp.ts); every other answer the web
 * listeners' strict default (../csp.ts). The web port redirects its old `/docs…` links here (./redirect.ts).
 */
export function createDocsApp(deps: ServiceDeps, options: WebOptions & { docsUrl: string }): Koa {
  const root = new Router();
  root.get('/', (ctx) => {
    ctx.status = 302;
    ctx.redirect('/docs');
  });
  return webAppOf(deps, options.docsUrl, [docsRouter(deps, { ...options, webUrl: options.docsUrl }), root]);
}
