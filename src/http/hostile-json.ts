import { ApiError } from '../domain/errors';
import { findDepthExcess, MAX_JSON_DEPTH } from './json-depth';
import { findJsonProblem, FOREIGN_BODY } from './json-guard';

/**
 * For a body that is not the API's own (the partner's callbacks): throws 400 `invalid_request` when
 * the text nests deeper than MAX_JSON_DEPTH, or is JSON with a duplicate key, a `__proto__` or
 * `constructor` key or an integer beyond 2^53 − 1 (json-guard.ts, no integer fields). Text that is
 * not JSON at all is left to the caller.
 */
export function refuseHostileJson(text: string): void {
  if (findDepthExcess(text)) throw new ApiError('invalid_request', `The body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`);
  try {
    JSON.parse(text);
  } catch {
    return;
  }
  const problem = findJsonProblem(text, FOREIGN_BODY);
  if (problem) throw new ApiError('invalid_request', problem.message, problem.param === undefined ? {} : { param: problem.param });
}
