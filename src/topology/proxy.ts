import http from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../domain/errors';
import { createLimitedServer, serverLimitsFromEnv, type RefusalStyle, type ServerLimits } from '../http/server-limits';
import { renderError } from '../services/render-error';
import { newId } from '../support/new-id';

export interface ProxyRoute {
  listen: number;
  backends: number[];
  /** How its own refusals look: the API's error envelope (sandbox, live) or the web port's plain text. */
  style: RefusalStyle;
}

/** The proxy's own answer when no API can take the request: 503 with Retry-After, as the API's own 503s. */
function unavailable(res: http.ServerResponse, style: RefusalStyle, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = newId('request');
  const body = style === 'api' ? renderError(new ApiError('service_unavailable', message), requestId).body : `${message} (request ${requestId})`;
  res.writeHead(503, {
    'content-type': style === 'api' ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
    'retry-after': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS),
    'request-id': requestId,
    'cache-control': 'no-store',
  });
  res.end(body);
}

/** Headers that belong to one connection (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);

/** Methods resent to the next backend after a reset before any answer (RFC 9110 §9.2.2: idempotent, and here without a body). */
const SAFE_TO_RESEND = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How long a backend that refused a connection is skipped before it is tried again. */
const DEAD_FOR_MS = 1_000;

/**
 * How long the proxy waits for a backend's answer (issue 44: an API process stopped with requests in
 * flight, found by the chaos run's composed faults). A backend accepted the connection (the kernel
 * does, even for a stopped process) but has not begun its answer:
 * - a GET, HEAD or OPTIONS (nothing to act on twice) goes on to the next backend after `hedgeAfterMs`,
 *   the slow one skipped for a while, unless it is the last one left;
 * - any request is answered 503 with Retry-After after `answerBoundMs`, under the API's 30 s promise
 *   (its own bounds end by 27 s: a 5 s wait for a connection, a 22 s query bound). It may have been
 *   acted on: the client retries with its Idempotency-Key, as after a backend that died.
 */
export interface ProxyTiming {
  hedgeAfterMs: number;
  answerBoundMs: number;
}

export const DEFAULT_PROXY_TIMING: ProxyTiming = { hedgeAfterMs: 3_000, answerBoundMs: 28_000 };

/**
 * The topology's load balancer: one listener per public port, each request sent to the next backend
 * in turn (round robin). A backend that refuses the connection (its process is gone) is skipped and
 * the request goes to the next one: the request's body is not read until a backend accepted the
 * connection, so nothing is sent twice. Once a backend accepted, its answer (or its failure: 502) is
 * the answer, since the request may have been acted on (a backend that dies before answering: 503
 * with Retry-After, the client's to retry with its Idempotency-Key); only a GET, HEAD or OPTIONS reset
 * before any answer, or not answered within `hedgeAfterMs`, goes on to the next backend; any request
 * not answered within `answerBoundMs` gets a 503 with Retry-After (ProxyTiming). No backend at all:
 * 503 with Retry-After.
 *
 * Hand-written on node:http rather than on a proxy library: the libraries (http-proxy-3, …) read the
 * body into the first attempt, so a retry on another backend needs the body buffered, which would
 * change what a slow or endless body does to the API (its own limits and deadlines).
 */
export function startProxy(route: ProxyRoute, limits: ServerLimits = serverLimitsFromEnv(), host = '127.0.0.1', timing: ProxyTiming = DEFAULT_PROXY_TIMING): Promise<http.Server> {
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
      unavailable(res, route.style, 'No API process is reachable; retry shortly.');
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent, setHost: false });
    let connected = false;
    let answered = false;
    let timedOut = false;
    // No answer begun in time: a safe request goes to the next backend, any request past the bound gets a 503 (ProxyTiming).
    const started = Date.now();
    const hedge = SAFE_TO_RESEND.has(req.method ?? '') && candidates.length > 1;
    let timer: NodeJS.Timeout;
    const onTime = () => {
      if (answered || res.headersSent) return;
      const waited = Date.now() - started;
      // A safe request whose (empty) body is read goes on; one still sending its body waits out the bound.
      if (hedge && req.readableEnded) {
        timedOut = true;
        upstream.destroy();
        deadUntil.set(port, Date.now() + DEAD_FOR_MS);
        forward(req, res, candidates.slice(1));
        return;
      }
      if (waited < timing.answerBoundMs) {
        timer = setTimeout(onTime, timing.answerBoundMs - waited);
        return;
      }
      timedOut = true;
      upstream.destroy();
      unavailable(res, route.style, 'The API process did not answer in time; retry with the same Idempotency-Key.');
    };
    timer = setTimeout(onTime, hedge ? timing.hedgeAfterMs : timing.answerBoundMs);
    const settled = () => {
      answered = true;
      clearTimeout(timer);
    };
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
      settled();
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      answer.pipe(res);
      answer.once('error', () => res.destroy());
    });
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      // Destroyed by the timer above, which answered or sent the request on.
      if (timedOut) return;
      settled();
      // Refused, or (a process killed a moment ago) accepted by the kernel then reset before any
      // answer: a request without a body that the next backend may safely get again.
      if (!connected || (!res.headersSent && SAFE_TO_RESEND.has(req.method ?? '') && req.readableEnded && error.code === 'ECONNRESET')) {
        // Refused (or unreachable): nothing of the request was sent; the next backend gets it.
        deadUntil.set(port, Date.now() + DEAD_FOR_MS);
        forward(req, res, candidates.slice(1));
        return;
      }
      // It may have been acted on: the client retries (a money request with its Idempotency-Key).
      unavailable(res, route.style, `The API process stopped while answering (${error.code ?? 'error'}); retry with the same Idempotency-Key.`);
    });
    // The client went away: so does the request to the backend.
    res.once('close', () => {
      clearTimeout(timer);
      if (!res.writableFinished) upstream.destroy();
    });
  };

  // The same listener limits as the APIs' own (HTTP_*; src/http/server-limits.ts): a slow or oversized
  // client is refused here, in the listener's format, as npm start's listener refuses it.
  const server = createLimitedServer((req, res) => forward(req, res, order()), limits, route.style);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(route.listen, host, () => resolve(server));
  });
}
