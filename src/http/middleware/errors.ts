import type { Middleware } from 'koa';
import { ApiError } from '../../domain/errors';
import { renderError } from '../../services/render-error';
import type { Logger } from '../../support/logger';

/** Renders every failure, in one place, into the documented envelope; nothing internal leaks. */
export function errorHandler(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) throw new ApiError('not_found', `No route ${ctx.method} ${ctx.path}.`);
    } catch (error) {
      const apiError =
        error instanceof ApiError ? error : new ApiError('internal_error', 'Something went wrong on our side. It has been logged; retrying with the same Idempotency-Key is safe.');
      if (!(error instanceof ApiError)) log.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'request failed');
      const { status, body } = renderError(apiError, ctx.state.requestId);
      ctx.status = status;
      ctx.type = 'application/json';
      ctx.body = body;
      if (apiError.code === 'invalid_api_key') ctx.set('WWW-Authenticate', 'Bearer');
    }
  };
}
