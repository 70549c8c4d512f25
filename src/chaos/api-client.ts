import { ANSWER_DEADLINE_MS, routeOf, type RequestLog, type RequestRecord } from './request-log';

export interface ApiAnswer {
  status: number;
  body: unknown;
  headers: Headers | null;
}

/** Past the deadline, plus a margin to see how late an answer is, the client gives up. */
const CLIENT_TIMEOUT_MS = ANSWER_DEADLINE_MS + 5_000;

/**
 * The chaos run's HTTP client for the public API: one request, timed and recorded in the run's
 * request log with the faults in force. Never throws: no answer is status 0.
 */
export async function apiRequest(
  log: RequestLog,
  source: RequestRecord['source'],
  port: number,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; idempotencyKey?: string; timeoutMs?: number } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const atStart = log.activeFaults();
  const at = Date.now();
  const started = performance.now();
  let answer: ApiAnswer = { status: 0, body: null, headers: null };
  let error: string | null = null;
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? CLIENT_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    answer = { status: response.status, body, headers: response.headers };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    error = err.name === 'TimeoutError' ? 'client timeout' : (err.cause?.code ?? err.message);
  }
  const code = errorCode(answer.body);
  // The faults in force at any point of the request: when it was sent, or when it was answered.
  const atEnd = log.activeFaults();
  const faults = [...new Set([...atStart.faults, ...atEnd.faults])];
  const faultKinds = [...new Set([...atStart.faultKinds, ...atEnd.faultKinds])];
  log.add({
    at,
    source,
    method,
    route: routeOf(path),
    port,
    status: answer.status,
    code,
    retryAfter: answer.headers?.get('retry-after') ?? null,
    latencyMs: Math.round(performance.now() - started),
    error,
    faults,
    faultKinds,
  });
  return answer;
}

function errorCode(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const error = (body as { error?: { code?: unknown } }).error;
  return typeof error?.code === 'string' ? error.code : null;
}
