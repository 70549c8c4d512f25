import cors from '@koa/cors';
import type { Middleware } from 'koa';

/**
 * CORS for the sandbox listener only (issue 21): the reference site's request console, on the web
 * port, calls the sandbox API from the browser. Exactly one origin is allowed, the web port's own
 * (WEB_PUBLIC_URL's origin); a request from any other origin gets no CORS header at all, so the
 * browser keeps the answer from the page. No credentials (the console sends a Bearer key, never a
 * cookie). The preflight allows the headers the API reads; the answer's Request-Id, RateLimit-* and
 * Idempotent-Replayed are readable by the page. The live listener mounts nothing of this: it answers
 * no CORS header for any origin.
 */
export function sandboxCors(allowedOrigin: string): Middleware {
  const origin = new URL(allowedOrigin).origin;
  return cors({
    origin: (ctx) => (ctx.get('Origin') === origin ? origin : ''),
    allowMethods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposeHeaders: ['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed'],
    maxAge: 600,
    credentials: false,
  });
}
