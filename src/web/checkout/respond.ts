import type { Context } from 'koa';
import type { ServiceDeps } from '../../services/context';
import { WebInputError } from '../form-body';
import { unavailablePage } from './pages';

/** The checkout pages' answers: an HTML page with its status, and a token route's error handling. */
export function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

/** Runs a token route; an error is logged with the request id but never the path (it holds the token). */
export function guarded(deps: ServiceDeps, handler: (ctx: Context, token: string) => Promise<void>) {
  return async (ctx: Context & { params: Record<string, string> }) => {
    try {
      await handler(ctx, ctx.params.token ?? '');
    } catch (error) {
      if (error instanceof WebInputError) throw error; // a refused form body: the web app answers its 4xx
      deps.log.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, route: 'checkout' }, 'checkout request failed');
      html(ctx, 500, unavailablePage());
    }
  };
}
