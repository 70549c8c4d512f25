import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Context, Middleware } from 'koa';
import proxyAddr from 'proxy-addr';
import { NO_TRUSTED_PROXIES, trustFunction, type TrustedProxies } from './trusted-proxies';

/**
 * The client's address of a request, by TRUSTED_PROXIES (./trusted-proxies.ts), with proxy-addr: the
 * socket's peer, then, for as long as the hop in hand is a trusted proxy, the address it put last in
 * `X-Forwarded-For`. A hop that is not an IP address (a proxy that passed on junk) is no client: the
 * address of the hop that handed it over is taken instead, so junk never makes a bucket of its own.
 * Without trusted proxies the header is never read. Only the address: the scheme and host a browser
 * sees come from WEB_PUBLIC_URL, never from `X-Forwarded-Proto` or `X-Forwarded-Host` (Koa's
 * `app.proxy` stays false on every listener).
 */
export function clientAddressResolver(proxies: TrustedProxies = NO_TRUSTED_PROXIES): (req: IncomingMessage) => string {
  if (proxies.kind === 'none') return (req) => req.socket.remoteAddress ?? '';
  const trust = trustFunction(proxies);
  return (req) => {
    const hops = proxyAddr.all(req, trust);
    for (let i = hops.length - 1; i >= 0; i--) if (hops[i] && net.isIP(hops[i]!)) return hops[i]!;
    return req.socket.remoteAddress ?? '';
  };
}

/**
 * Resolves the client's address once per request, first thing: `ctx.state.clientAddress`, and Koa's
 * `ctx.ip` set to the same, so every per-address limit and log line of the listener sees one address.
 */
export function clientAddress(proxies: TrustedProxies = NO_TRUSTED_PROXIES): Middleware {
  const resolve = clientAddressResolver(proxies);
  return async (ctx, next) => {
    const address = resolve(ctx.req);
    ctx.state.clientAddress = address;
    ctx.request.ip = address;
    await next();
  };
}

/** The request's client address as `clientAddress` resolved it (the socket's peer on an app without it). */
export function clientAddressOf(ctx: Context): string {
  const resolved = ctx.state.clientAddress as string | undefined;
  return resolved ?? ctx.req.socket.remoteAddress ?? '';
}
