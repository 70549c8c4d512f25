import type { Middleware } from 'koa';
import type { Environment } from '../../domain/environment';
import type { Logger } from '../../support/logger';
import type { ApiMetrics } from '../../support/metrics';

/**
 * One line per request (method, path, status, duration, request id, merchant; no headers, no bodies)
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
        },
        'request',
      );
    }
  };
}
