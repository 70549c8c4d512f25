import { errors, request, type Dispatcher } from 'undici';
import { RESPONSE_EXCERPT_BYTES } from '../domain/webhook-delivery';
import { responseExcerpt } from '../domain/response-excerpt';
import { UnsafeAddressError, type RefusalDetail } from './safe-agent';

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  /** Why no usable answer came back (timeout, refused address, connection error). */
  error: string | null;
  /**
   * The start of the answer as storable text: at most RESPONSE_EXCERPT_BYTES of UTF-8, invalid bytes
   * and control characters (NUL included) replaced with U+FFFD (see src/domain/response-excerpt.ts).
   */
  responseBody: string | null;
  retryAfter: string | undefined;
  /** Why the SSRF rules refused the send, for the server's log only (may name an internal address); never stored. */
  refusal: RefusalDetail | null;
}

/** The SSRF refusal behind an error, if any (undici may wrap the connector's error in `cause`). */
function refusalOf(error: unknown): UnsafeAddressError | undefined {
  if (error instanceof UnsafeAddressError) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof UnsafeAddressError ? cause : undefined;
}

function describe(error: unknown, timeoutMs: number): string {
  const refused = refusalOf(error);
  if (refused) return refused.message;
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError || (error as Error)?.name === 'TimeoutError') {
    return `timeout: no complete response within ${timeoutMs / 1000} s`;
  }
  const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code;
  const message = e?.message ?? String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * One POST through the given dispatcher (the SSRF-checked agent). Redirects are not followed; the
 * whole exchange, body included, must finish within the timeout.
 */
export async function sendWebhook(dispatcher: Dispatcher, req: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const signal = AbortSignal.timeout(req.timeoutMs);
  try {
    const response = await request(req.url, {
      method: 'POST',
      dispatcher,
      headers: req.headers,
      body: req.body,
      signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= RESPONSE_EXCERPT_BYTES) break;
    }
    const retryAfter = response.headers['retry-after'];
    return {
      statusCode: response.statusCode,
      durationMs: Math.round(performance.now() - started),
      error: null,
      responseBody: responseExcerpt(Buffer.concat(chunks), RESPONSE_EXCERPT_BYTES),
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      refusal: null,
    };
  } catch (error) {
    return {
      statusCode: null,
      durationMs: Math.round(performance.now() - started),
      error: describe(error, req.timeoutMs),
      responseBody: null,
      retryAfter: undefined,
      refusal: refusalOf(error)?.detail ?? null,
    };
  }
}
