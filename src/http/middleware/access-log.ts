import type { Middleware } from 'koa';
import type { Logger } from '../../support/logger';

/** One line per request: method, path, status, duration, request id, merchant. No headers, no bodies. */
export function accessLog(log: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      log.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          merchantId: ctx.state.caller?.merchantId,
        },
        'request',
      );
    }
  };
}
