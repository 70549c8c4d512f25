import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLimitedServer, serverLimitsFromEnv, type ServerLimits } from '../http/server-limits';
import { bearerMatches } from './bearer-token';

/**
 * A `/metrics` listener (issue 47, finding 3): the API's (METRICS_PORT) and the worker's
 * (WORKER_METRICS_PORT) are both served here. It binds METRICS_HOST (127.0.0.1 by default, whatever
 * HOST is); with METRICS_TOKEN set a scrape without `Authorization: Bearer <token>` is answered 401
 * (compared in constant time; the token is never logged or echoed); and it has the API listeners'
 * hostile-input limits (src/http/server-limits.ts: header and request timeouts, header size and
 * count), plus a bound on open connections. Only `GET` or `HEAD /metrics`.
 */
export interface MetricsListenerOptions {
  port: number;
  host: string;
  /** METRICS_TOKEN: when set, every scrape must carry it as a bearer token. */
  token?: string;
  /** The limits; when not given, the HTTP_* settings (serverLimitsFromEnv), as the API listeners'. */
  limits?: ServerLimits;
}

/** Open connections one metrics listener keeps; more wait in the kernel's backlog (a scraper needs one or two). */
export const METRICS_MAX_CONNECTIONS = 32;

export interface MetricsText {
  contentType: string;
  body: string;
}

function plain(res: http.ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...headers }).end(`${text}\n`);
}

/** The listener (already listening on `options.port`, `options.host`); `read` gives the exposition text. */
export function serveMetricsText(read: () => Promise<MetricsText>, options: MetricsListenerOptions): http.Server {
  const server = createLimitedServer(
    (req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/metrics') return plain(res, 404, 'Not found: GET /metrics');
      if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'GET /metrics', { Allow: 'GET, HEAD' });
      if (options.token !== undefined && !bearerMatches(req.headers.authorization, options.token)) {
        return plain(res, 401, 'A valid bearer token is required (METRICS_TOKEN).', { 'WWW-Authenticate': 'Bearer realm="metrics"' });
      }
      read().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }).end(req.method === 'HEAD' ? undefined : body);
        },
        () => plain(res, 503, 'The metrics could not be read.'),
      );
    },
    options.limits ?? serverLimitsFromEnv(),
    'web',
  );
  server.maxConnections = METRICS_MAX_CONNECTIONS;
  return server.listen(options.port, options.host);
}

/** Resolves once `server` listens (its port); rejects with the listen error (EADDRINUSE, EADDRNOTAVAIL). */
export function listening(server: http.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    if (server.listening) return resolve((server.address() as AddressInfo).port);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * The worker's `/metrics`: the Temporal SDK's Prometheus exporter (Rust; it has no authentication and
 * no request limits of its own) is bound to 127.0.0.1 on an internal port (`upstreamPort`), and this
 * listener, on METRICS_HOST:WORKER_METRICS_PORT with the token and the limits, answers with what it reads there.
 */
export function serveUpstreamMetrics(upstreamPort: number, options: MetricsListenerOptions): http.Server {
  return serveMetricsText(async () => {
    const res = await fetch(`http://127.0.0.1:${upstreamPort}/metrics`, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`the SDK's exporter answered ${res.status}`);
    return { contentType: res.headers.get('content-type') ?? 'text/plain; version=0.0.4', body: await res.text() };
  }, options);
}
