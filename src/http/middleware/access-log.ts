import type { Middleware } from 'koa';
import type { Environment } from '../../domain/environment';
import type { Logger } from '../../support/logger';
import type { ApiMetrics } from '../../support/metrics';
import { clientAddressOf } from '../../support/client-address';

/**
 * One line per request (method, path, status, duration, request id, merchant, the client's address as
 * TRUSTED_PROXIES makes it out; no headers, no bodies)
 * and the request metrics, labelled by route template so ids do not explode the series.
 */
export function accessLog(log: Logger, environment: Environment, metrics?: ApiMetrics): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      metrics?.httpRequests.inc({ method: ctx.method, route, status: String(ctx.status), environment });
      metrics?.httpDuration.observe({ method: ctx.method, route, environment }, seconds);
      log.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: seconds * 1000,
          merchantId: ctx.state.caller?.merchantId,
          clientAddress: clientAddressOf(ctx),
        },
        'request',
      );
    }
  };
}
