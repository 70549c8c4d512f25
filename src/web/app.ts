import Koa from 'koa';
import type Router from '@koa/router';
import helmet from 'koa-helmet';
import type { ServiceDeps } from '../services/context';
import { clientAddress } from '../support/client-address';
import { newId } from '../support/new-id';
import { webCspDirectives } from './csp';
import { WebInputError } from './form-body';
import { webRouters } from './routers';
import { docsRedirect } from './docs/redirect';
import type { WebOptions } from './web-options';

/**
 * The web port's app (INTERFACE "Web"; WEB_PORT, default 3002): the merchant portal and hosted
 * checkout, started by `npm start` beside the API listeners (the API reference has its own origin,
 * DOCS_PORT: src/web/docs/app.ts; `/docs…` here redirects there). Pages are served with
 * strict browser headers (helmet: the Content-Security-Policy of ./csp.ts, 'self' only, no framing,
 * nosniff, no referrer across origins); a part that needs more (a script or style source) widens it for its own
 * routes only. Every answer carries a `Request-Id`; a refused form body (./form-body.ts) is a plain page
 * with its 4xx; an unexpected error is a plain page that says nothing internal, and is logged.
 */
export function createWebApp(deps: ServiceDeps, options: WebOptions): Koa {
  // Issue 47: the reference site has its own origin (DOCS_PORT, src/web/docs/app.ts); its old paths here redirect there.
  return webAppOf(deps, options.webUrl, webRouters(deps, options), options.docsUrl ? [docsRedirect(options.docsUrl)] : [], options.trustedProxies);
}

/**
 * A web listener's app: the Request-Id, the error pages, the browser headers (the CSP of ./csp.ts for
 * `ownUrl`), no caching, `/health`, then `before` and the routers. The web port's and the reference
 * site's (src/web/docs/app.ts).
 */
export function webAppOf(deps: ServiceDeps, ownUrl: string, routers: Router[], before: Koa.Middleware[] = [], trustedProxies?: WebOptions['trustedProxies']): Koa {
  const app = new Koa();
  // Never Koa's own reading of X-Forwarded-*: the scheme and host (the cookies' `Secure`, the Origin
  // check) come from WEB_PUBLIC_URL alone; the client's address by TRUSTED_PROXIES (the portal's per-address sign-in limit).
  app.proxy = false;
  app.silent = true;
  app.use(clientAddress(trustedProxies));
  app.use(async (ctx, next) => {
    ctx.state.requestId = newId('request');
    ctx.set('Request-Id', ctx.state.requestId);
    try {
      await next();
    } catch (error) {
      if (error instanceof WebInputError) {
        // A refused form body (./form-body.ts): its status and a plain page saying why; nothing was done.
        ctx.status = error.status;
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = `${error.message} Go back, reload the page and try again. (request ${ctx.state.requestId})`;
        if (error.status !== 400) ctx.set('Connection', 'close');
        return;
      }
      deps.log.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'web request failed');
      ctx.status = 500;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `Something went wrong on our side (request ${ctx.state.requestId}). It has been logged.`;
    }
  });
  app.use(
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: webCspDirectives(ownUrl) },
      referrerPolicy: { policy: 'same-origin' },
    }),
  );
  app.use(async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
  });
  app.use(async (ctx, next) => {
    if (ctx.path === '/health') {
      ctx.body = { status: 'ok' };
      return;
    }
    await next();
  });
  for (const middleware of before) app.use(middleware);
  for (const router of routers) app.use(router.routes()).use(router.allowedMethods());
  return app;
}
