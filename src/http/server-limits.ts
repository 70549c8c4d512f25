import http from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../domain/errors';
import { renderError } from '../services/render-error';
import { newId } from '../support/new-id';

/**
 * What one HTTP listener accepts of a client before any handler runs (issue 32, "Hostile bodies and
 * headers"); the same for the API listeners and the web port. Settings: docs/operations.md.
 */
export interface ServerLimits {
  /** HTTP_HEADERS_TIMEOUT_MS (default 10,000): a request's headers must have arrived this long after its first byte (a slowloris client is answered 408 and closed). */
  headersTimeoutMs: number;
  /** HTTP_REQUEST_TIMEOUT_MS (default 30,000): the whole request, body included, must have arrived by then (a body that never ends: 408, closed). At least the headers' timeout. */
  requestTimeoutMs: number;
  /** HTTP_MAX_HEADER_BYTES (default 16,384): the request line and headers together; more is 431 and closed. */
  maxHeaderBytes: number;
  /** HTTP_MAX_HEADERS (default 100): header lines per request; more is 431 and closed. */
  maxHeaders: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxHeaderBytes: 16 * 1024, maxHeaders: 100 };

/** How a listener's refusals look: the API's error envelope, or the web port's plain page. */
export type RefusalStyle = 'api' | 'web';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

interface Refusal {
  status: 400 | 408 | 431;
  code: 'invalid_request' | 'request_timeout' | 'request_headers_too_large';
  message: string;
}

function refusalOf(code: string | undefined, limits: ServerLimits): Refusal {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, code: 'request_headers_too_large', message: `The request line and headers exceed ${limits.maxHeaderBytes} bytes.` };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'request_timeout', message: `The request did not arrive in time (headers within ${limits.headersTimeoutMs} ms, the whole request within ${limits.requestTimeoutMs} ms).` };
  }
  return { status: 400, code: 'invalid_request', message: 'The request is not valid HTTP.' };
}

/** A refusal's status, headers and body in the listener's format; it always closes the connection. */
function answerOf(refusal: Refusal, style: RefusalStyle): { headers: Record<string, string>; body: string } {
  const requestId = newId('request');
  const { body, type } =
    style === 'api'
      ? { body: renderError(new ApiError(refusal.code, refusal.message), requestId).body, type: 'application/json; charset=utf-8' }
      : { body: `${refusal.message} (request ${requestId})`, type: 'text/plain; charset=utf-8' };
  const headers = { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), 'Request-Id': requestId, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', Connection: 'close' };
  return { headers, body };
}

/** The whole HTTP/1.1 answer, for a socket no handler owns. */
function rawAnswer(refusal: Refusal, style: RefusalStyle): string {
  const { headers, body } = answerOf(refusal, style);
  return [`HTTP/1.1 ${refusal.status} ${REASONS[refusal.status]}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), '', body].join('\r\n');
}

/** Throws at start on limits Node would refuse or that make no sense. */
function checked(limits: ServerLimits): ServerLimits {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0) throw new Error(`server limit ${name} must be a positive integer, got ${value}`);
  }
  if (limits.requestTimeoutMs < limits.headersTimeoutMs) throw new Error('HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS');
  return limits;
}

/**
 * An HTTP server for `handler` with `limits` (no `listen`): src/main.ts and any other process serving
 * the API or the web port create theirs here. Node parses and times requests; what it refuses before
 * a handler runs (headers over the size, headers or body too slow, bytes that are not HTTP) is
 * answered here in the listener's own format (`style`) with `Connection: close`, and the socket
 * closed; too many header lines are answered 431 before the handler. No handler runs for any of them,
 * so nothing is written. Other connections are served meanwhile (Node checks timeouts every
 * `connectionsCheckingInterval`, here at most 1 s).
 */
export function createLimitedServer(handler: http.RequestListener, limits: ServerLimits, style: RefusalStyle): http.Server {
  const { headersTimeoutMs, requestTimeoutMs, maxHeaderBytes, maxHeaders } = checked(limits);
  const server = http.createServer(
    {
      maxHeaderSize: maxHeaderBytes,
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
    },
    (req, res) => {
      // Node keeps at most maxHeadersCount header lines (set one above the limit), so one too many shows.
      if (req.rawHeaders.length / 2 > maxHeaders) {
        const refusal: Refusal = { status: 431, code: 'request_headers_too_large', message: `The request has more than ${maxHeaders} header lines.` };
        const { headers, body } = answerOf(refusal, style);
        res.shouldKeepAlive = false;
        res.writeHead(refusal.status, headers).end(body);
        return;
      }
      handler(req, res);
    },
  );
  server.maxHeadersCount = maxHeaders + 1;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node's own answer: only when no answer of a handler has started on this socket.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent && error.code !== 'ECONNRESET') socket.end(rawAnswer(refusalOf(error.code, limits), style));
    socket.destroy();
  });
  return server;
}

/** The limits from the environment (docs/operations.md); unset or empty: DEFAULT_SERVER_LIMITS. */
export function serverLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): ServerLimits {
  const int = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
    return value;
  };
  const d = DEFAULT_SERVER_LIMITS;
  return checked({
    headersTimeoutMs: int('HTTP_HEADERS_TIMEOUT_MS', d.headersTimeoutMs),
    requestTimeoutMs: int('HTTP_REQUEST_TIMEOUT_MS', d.requestTimeoutMs),
    maxHeaderBytes: int('HTTP_MAX_HEADER_BYTES', d.maxHeaderBytes),
    maxHeaders: int('HTTP_MAX_HEADERS', d.maxHeaders),
  });
}
