import Koa from 'koa';
import helmet from 'koa-helmet';
import type { ServiceDeps } from '../services/context';
import { clientAddress } from '../support/client-address';
import { newId } from '../support/new-id';
import { webCspDirectives } from './csp';
import { WebInputError } from './form-body';
import { webRouters } from './routers';
import type { WebOptions } from './web-options';

/**
 * The web port's app (INTERFACE "Web"; WEB_PORT, default 3002): the API reference, the merchant
 * portal and hosted checkout, started by `npm start` beside the API listeners. Pages are served with
 * strict browser headers (helmet: the Content-Security-Policy of ./csp.ts, 'self' only, no framing,
 * nosniff, no referrer across origins); a part that needs more (a script or style source) widens it for its own
 * routes only. Every answer carries a `Request-Id`; a refused form body (./form-body.ts) is a plain page
 * with its 4xx; an unexpected error is a plain page that says nothing internal, and is logged.
 */
export function createWebApp(deps: ServiceDeps, options: WebOptions): Koa {
  const app = new Koa();
  // Never Koa's own reading of X-Forwarded-*: the scheme and host (the cookies' `Secure`, the Origin
  // check) come from WEB_PUBLIC_URL alone; the client's address by TRUSTED_PROXIES (the portal's per-address sign-in limit).
  app.proxy = false;
  app.silent = true;
  app.use(clientAddress(options.trustedProxies));
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
      contentSecurityPolicy: { useDefaults: false, directives: webCspDirectives(options.webUrl) },
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
  for (const router of webRouters(deps, options)) app.use(router.routes()).use(router.allowedMethods());
  return app;
}
