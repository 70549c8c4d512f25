import type { Middleware } from 'koa';
import { ApiError, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../domain/errors';
import { asServiceUnavailable } from '../../services/dependency-unavailable';
import { renderError } from '../../services/render-error';
import type { Logger } from '../../support/logger';
import { hasControlCharacter } from '../validate';

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Renders every failure, in one place, into the documented envelope; nothing internal leaks. A
 * dependency outage (database unreachable, Temporal unreachable or past the request's deadline) is
 * 503 `service_unavailable` with `Retry-After`; anything else unexpected is 500 `internal_error`.
 */
export function errorHandler(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      // Path parameters (ids) reach SQL too; PostgreSQL refuses a NUL in them. Same rule as bodies.
      if (hasControlCharacter(decodedPath(ctx.path))) throw new ApiError('invalid_request', 'The request path must not contain control characters.');
      await next();
      if (ctx.status === 404 && ctx.body == null) throw new ApiError('not_found', `No route ${ctx.method} ${ctx.path}.`);
    } catch (error) {
      const mapped = asServiceUnavailable(error);
      const apiError =
        mapped instanceof ApiError ? mapped : new ApiError('internal_error', 'Something went wrong on our side. It has been logged; retrying with the same Idempotency-Key is safe.');
      if (!(error instanceof ApiError)) {
        const where = { err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path };
        if (mapped instanceof ApiError) log.warn(where, 'request failed: a dependency is unavailable');
        else log.error(where, 'request failed');
      }
      const { status, body } = renderError(apiError, ctx.state.requestId);
      ctx.status = status;
      ctx.type = 'application/json';
      ctx.body = body;
      if (apiError.code === 'invalid_api_key') ctx.set('WWW-Authenticate', 'Bearer');
      if (apiError.code === 'service_unavailable') ctx.set('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    }
  };
}
