import Router, { type RouterContext } from '@koa/router';
import { openApiDocument } from '../../http/openapi/document';
import type { ServiceDeps } from '../../services/context';
import type { WebOptions } from '../routers';
import { serveAsset } from './assets';
import { consolePage } from './console-page';
import { docsCsp } from './csp';
import { GUIDES, guidePage, type Guide } from './guides';
import { referencePage } from './reference-page';

/**
 * The reference site (issue 21): `/docs` (the API reference, Redoc over the OpenAPI document), the
 * guides under `/docs/guides/`, the request console `/docs/console`, and their assets, all served by
 * this server. Each page gets the site's own Content-Security-Policy (./csp.ts).
 */
export function docsRouter(_deps: ServiceDeps, options: WebOptions): Router {
  const router = new Router({ prefix: '/docs' });
  const csp = docsCsp(options);
  const referenceCsp = docsCsp({ ...options, reference: true });
  // The OpenAPI document from the very generator the API listeners serve it from (GET
  // /v1/openapi.json), here on this origin: the reference never depends on another server or CORS.
  const specUrl = '/docs/openapi.json';
  const spec = JSON.stringify(openApiDocument());
  const html = (ctx: RouterContext, body: string, policy = csp) => {
    ctx.set('Content-Security-Policy', policy);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = body;
  };

  router.get('/', (ctx) => html(ctx, referencePage(specUrl), referenceCsp));
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = spec;
  });
  router.get('/console', (ctx) => html(ctx, consolePage(options.sandboxApiUrl)));
  router.get('/guides/:guide', (ctx, next) => {
    const guide = ctx.params.guide as Guide;
    if (!GUIDES.includes(guide)) return next();
    html(ctx, guidePage(guide));
  });
  router.get('/assets/:name', (ctx, next) => (serveAsset(ctx, ctx.params.name) ? undefined : next()));
  return router;
}
