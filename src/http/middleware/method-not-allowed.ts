import type { Middleware } from 'koa';
import type { RouterContext } from '@koa/router';
import { ApiError } from '../../domain/errors';

/**
 * Around the `/v1` routes: a known path asked with a method it does not have is 405
 * `method_not_allowed` in the error envelope with `Allow` listing the methods it has (RFC 9110
 * 15.5.6), and OPTIONS on it is 204 with `Allow`; an unknown path stays 404. The methods come from the
 * routes the router matched by path (HEAD with every GET), so `Allow` is the route table's, the same
 * one the OpenAPI document is built from.
 */
export function methodNotAllowed(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body != null) return;
    const matched = (ctx as unknown as RouterContext).matched ?? [];
    const allowed = [...new Set(matched.flatMap((layer) => layer.methods))];
    if (allowed.length === 0 || allowed.includes(ctx.method)) return;
    ctx.set('Allow', allowed.join(', '));
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw new ApiError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; it allows ${allowed.join(', ')}.`);
  };
}
