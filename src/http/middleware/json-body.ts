import type { Middleware } from 'koa';
import { ApiError } from '../../domain/errors';
import { readBodyText } from '../body-text';
import { findDepthExcess, MAX_JSON_DEPTH } from '../json-depth';
import { API_BODY, findJsonProblem } from '../json-guard';

/**
 * Reads and parses a JSON object body with a size limit; anything else is refused before any work,
 * each with 400 `invalid_request` (413 `request_too_large` over the limit), in this order:
 * - bytes that are not UTF-8 (body-text.ts);
 * - nesting deeper than MAX_JSON_DEPTH, before parsing (`param` the top-level field it is under), so
 *   a crafted body cannot make the parser or the validators recurse;
 * - text that is not JSON, or JSON that is not an object;
 * - a duplicate key, a `__proto__` or `constructor` key, an integer beyond 2^53 − 1, or a number in an
 *   API field whose text is not exactly a safe integer (`1.5`, `4503599627370496.5`; `1.0` and `1e2`
 *   are the integers they are): json-guard.ts, `param` its path.
 */
export function jsonBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    if (!ctx.is('application/json')) throw new ApiError('invalid_request', 'Send the body as JSON with "Content-Type: application/json".');
    const raw = await readBodyText(ctx.req, limitBytes, ctx.get('Content-Length'));
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
    const problem = findJsonProblem(raw, API_BODY);
    if (problem) throw new ApiError('invalid_request', problem.message, problem.param === undefined ? {} : { param: problem.param });
    ctx.state.body = parsed;
    ctx.state.rawBody = raw;
    await next();
  };
}
