import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { ApiError } from '../domain/errors';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A request body as text, read whole up to `limitBytes` (raw-body) and decoded as strict UTF-8: over
 * the limit is 413 `request_too_large`; a body that breaks off (the client went away, or the server's
 * request timeout closed it: src/http/server-limits.ts) or holds bytes that are not UTF-8 is 400
 * `invalid_request`. Invalid bytes are never replaced by U+FFFD and read on as if the client sent that.
 */
export async function readBodyText(req: IncomingMessage, limitBytes: number, contentLength?: string): Promise<string> {
  let raw: Buffer;
  try {
    raw = await getRawBody(req, { limit: limitBytes, length: contentLength || undefined });
  } catch (error) {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') throw new ApiError('request_too_large', `The body exceeds ${limitBytes} bytes.`);
    throw new ApiError('invalid_request', 'The request body could not be read.');
  }
  try {
    return UTF8.decode(raw);
  } catch {
    throw new ApiError('invalid_request', 'The body is not valid UTF-8.');
  }
}
