import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { ApiError } from '../../domain/errors';

/** Reads and parses a JSON object body with a size limit; anything else is refused before any work. */
export function jsonBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    if (!ctx.is('application/json')) throw new ApiError('invalid_request', 'Send the body as JSON with "Content-Type: application/json".');
    let raw: string;
    try {
      raw = await getRawBody(ctx.req, { limit: limitBytes, encoding: 'utf8', length: ctx.get('Content-Length') || undefined });
    } catch (error) {
      const type = (error as { type?: string }).type;
      if (type === 'entity.too.large') throw new ApiError('request_too_large', `The body exceeds ${limitBytes} bytes.`);
      throw new ApiError('invalid_request', 'The request body could not be read.');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new ApiError('invalid_request', 'The body is not valid JSON.');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ApiError('invalid_request', 'The body must be a JSON object.');
    ctx.state.body = parsed;
    ctx.state.rawBody = raw;
    await next();
  };
}
