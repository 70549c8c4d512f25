import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { ApiError } from '../../domain/errors';
import { findDepthExcess, MAX_JSON_DEPTH } from '../json-depth';

/**
 * Reads and parses a JSON object body with a size limit; anything else is refused before any work.
 * Nesting deeper than MAX_JSON_DEPTH is refused before parsing (400 `invalid_request`, `param` the
 * top-level field it is under), so a crafted body cannot make the parser or the validators recurse.
 */
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
    const tooDeep = findDepthExcess(raw);
    if (tooDeep) {
      const under = tooDeep.member === undefined ? '' : ` (in ${tooDeep.member})`;
      throw new ApiError('invalid_request', `The body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep${under}.`, tooDeep.member === undefined ? {} : { param: tooDeep.member });
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
