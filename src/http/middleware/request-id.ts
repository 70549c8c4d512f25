import type { Middleware } from 'koa';
import { newId } from '../../support/new-id';

/** Every request gets an id (`req_…`), echoed in `Request-Id` and in error bodies. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    ctx.state.requestId = newId('request');
    ctx.set('Request-Id', ctx.state.requestId);
    await next();
  };
}
