import http from 'node:http';
import type { Socket } from 'node:net';

export interface ProxyRoute {
  listen: number;
  backends: number[];
}

/** Headers that belong to one connection (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);

/** Methods resent to the next backend after a reset before any answer (RFC 9110 §9.2.2: idempotent, and here without a body). */
const SAFE_TO_RESEND = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How long a backend that refused a connection is skipped before it is tried again. */
const DEAD_FOR_MS = 1_000;

/**
 * The topology's load balancer: one listener per public port, each request sent to the next backend
 * in turn (round robin). A backend that refuses the connection (its process is gone) is skipped and
 * the request goes to the next one: the request's body is not read until a backend accepted the
 * connection, so nothing is sent twice. Once a backend accepted, its answer (or its failure: 502) is
 * the answer, since the request may have been acted on; only a GET, HEAD or OPTIONS reset before any
 * answer goes on to the next backend (a POST is the client's to retry, with its Idempotency-Key).
 *
 * Hand-written on node:http rather than on a proxy library: the libraries (http-proxy-3, …) read the
 * body into the first attempt, so a retry on another backend needs the body buffered, which would
 * change what a slow or endless body does to the API (its own limits and deadlines).
 */
export function startProxy(route: ProxyRoute, host = '127.0.0.1'): Promise<http.Server> {
  let next = 0;
  const deadUntil = new Map<number, number>();
  const agent = new http.Agent({ keepAlive: false });

  const order = (): number[] => {
    const n = route.backends.length;
    const start = next++ % n;
    const all = Array.from({ length: n }, (_, i) => route.backends[(start + i) % n]!);
    const now = Date.now();
    // Backends marked dead go last: tried only when every other one refused too.
    return [...all.filter((b) => (deadUntil.get(b) ?? 0) <= now), ...all.filter((b) => (deadUntil.get(b) ?? 0) > now)];
  };

  const forward = (req: http.IncomingMessage, res: http.ServerResponse, candidates: number[]): void => {
    const port = candidates[0];
    if (port === undefined) {
      if (!res.headersSent) res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ error: { type: 'api_error', code: 'service_unavailable', message: 'No API process is reachable; retry shortly' } }));
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent, setHost: false });
    let connected = false;
    upstream.once('socket', (socket: Socket) => {
      socket.once('connect', () => {
        connected = true;
        deadUntil.delete(port);
        // A resent GET's (empty) body was read by the first attempt already.
        if (req.readableEnded) upstream.end();
        else req.pipe(upstream);
      });
    });
    upstream.once('response', (answer) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      answer.pipe(res);
      answer.once('error', () => res.destroy());
    });
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      // Refused, or (a process killed a moment ago) accepted by the kernel then reset before any
      // answer: a request without a body that the next backend may safely get again.
      if (!connected || (!res.headersSent && SAFE_TO_RESEND.has(req.method ?? '') && req.readableEnded && error.code === 'ECONNRESET')) {
        // Refused (or unreachable): nothing of the request was sent; the next backend gets it.
        deadUntil.set(port, Date.now() + DEAD_FOR_MS);
        forward(req, res, candidates.slice(1));
        return;
      }
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', code: 'bad_gateway', message: `The API process failed while answering (${error.code ?? error.message})` } }));
      } else res.destroy();
    });
    // The client went away: so does the request to the backend.
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
  };

  const server = http.createServer((req, res) => forward(req, res, order()));
  // The APIs keep their own limits on slow requests; the proxy does not add a shorter one.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(route.listen, host, () => resolve(server));
  });
}
