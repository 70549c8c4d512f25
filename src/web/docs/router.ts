import Router, { type RouterContext } from '@koa/router';
import type { HtmlSafeString } from 'escape-html-template-tag';
import type { ServiceDeps } from '../../services/context';
import type { WebOptions } from '../web-options';
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
  // The OpenAPI document from the very generator the API listeners serve it from (GET
  // /v1/openapi.json), here on this origin: the reference then depends on no other server or CORS.
  // Without it (an app built without the document), the sandbox listener's.
  const spec = options.openApiDocument ? JSON.stringify(options.openApiDocument()) : undefined;
  const specUrl = spec ? '/docs/openapi.json' : `${new URL(options.sandboxApiUrl).origin}/v1/openapi.json`;
  const csp = docsCsp(options);
  const referenceCsp = docsCsp({ ...options, reference: true, toSandbox: !spec });
  // The one place a page (built with the `html` tag) becomes the answer's text; a guide is cached as text.
  const html = (ctx: RouterContext, page: HtmlSafeString | string, policy = csp) => {
    ctx.set('Content-Security-Policy', policy);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page.toString();
  };

  router.get('/', (ctx) => html(ctx, referencePage(specUrl), referenceCsp));
  router.get('/openapi.json', (ctx, next) => {
    if (!spec) return next();
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
