import type { Middleware } from 'koa';

/**
 * The web port's `/docs` and everything under it (the reference site's paths before issue 47):
 * `GET`/`HEAD` answer 302 to the same path and query on the reference site's own origin (DOCS_PUBLIC_URL),
 * so old links and bookmarks still work; the web port serves none of the site itself. The target's
 * origin is the setting's, never the request's.
 */
export function docsRedirect(docsUrl: string): Middleware {
  const origin = new URL(docsUrl).origin;
  return async (ctx, next) => {
    if (ctx.path !== '/docs' && !ctx.path.startsWith('/docs/')) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    ctx.status = 302;
    ctx.redirect(`${origin}${ctx.url}`);
  };
}
