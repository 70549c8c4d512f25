import { Pool, errors } from 'undici';
import { RailUnavailable } from './partner-rail';
import { parseJson } from './momo-status';

/** The most of an answer we read: MoMo's answers are a few hundred bytes. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface PartnerAnswer {
  status: number;
  text: string;
  /** The body as JSON, undefined when it is empty or not JSON. */
  json: unknown;
}

function describe(error: unknown, timeoutMs: number): string {
  const e = error as (Error & { code?: string; cause?: { code?: string; message?: string } }) | undefined;
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError ||
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    error instanceof errors.RequestAbortedError
  ) {
    return `timeout: no complete answer within ${timeoutMs} ms`;
  }
  const code = e?.code ?? e?.cause?.code;
  const message = e?.message ?? String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** Error codes of a request that never reached the partner: nothing was written to it (issue 46). */
const NOT_REACHED_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Whether a failed request provably never reached the partner: its connection was never made. */
export function neverReached(error: unknown): boolean {
  if (error instanceof errors.ConnectTimeoutError) return true;
  const e = error as (Error & { code?: string; cause?: { code?: string } }) | undefined;
  const code = e?.code ?? e?.cause?.code;
  return code !== undefined && NOT_REACHED_CODES.has(code);
}

/**
 * HTTP to the partner through one undici Pool: every call, connection to last byte, finishes within
 * `timeoutMs` or fails; every failure to get an answer is a RailUnavailable (retry, same reference).
 * Headers and bodies are never logged here: they carry credentials.
 */
export class PartnerHttp {
  private readonly pool: Pool;
  private readonly prefix: string;

  constructor(baseUrl: string, private readonly timeoutMs: number, connections = 16) {
    const url = new URL(baseUrl);
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs },
      keepAliveTimeout: 10_000,
    });
  }

  async send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<PartnerAnswer> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await this.pool.request({ method, path: this.prefix + path, headers, body, signal });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_ANSWER_BYTES) {
          response.body.destroy();
          throw new RailUnavailable(`${method} ${path}: the partner's answer is larger than ${MAX_ANSWER_BYTES} bytes`, response.statusCode);
        }
        chunks.push(chunk as Buffer);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      return { status: response.statusCode, text, json: text.trim() ? parseJson(text) : undefined };
    } catch (error) {
      if (error instanceof RailUnavailable) throw error;
      throw new RailUnavailable(`${method} ${path}: ${describe(error, this.timeoutMs)}`, undefined, neverReached(error));
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
