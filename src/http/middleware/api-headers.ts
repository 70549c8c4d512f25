import type { Middleware } from 'koa';

/**
 * Headers every API answer carries, errors included (issue 20, carried from the security issue):
 * `Cache-Control: no-store`, since every answer is a merchant's own data or an error about a key, and
 * no browser, proxy or CDN may keep it; `X-Content-Type-Options: nosniff`, so a browser never guesses
 * a type other than the one sent. Set before the rest runs and again after, so no later middleware's
 * answer (the error handler's envelope, a 404 for an unknown route) can go out without them.
 */
export function apiHeaders(): Middleware {
  const set = (ctx: Parameters<Middleware>[0]) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
  };
  return async (ctx, next) => {
    set(ctx);
    try {
      await next();
    } finally {
      set(ctx);
    }
  };
}
