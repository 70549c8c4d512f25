import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError } from '../domain/errors';
import { findMetadataProblem } from './metadata-limits';
import { findControlCharacter } from '../domain/control-characters';

export { findControlCharacter, hasControlCharacter } from '../domain/control-characters';

const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, useDefaults: false });
addFormats(ajv, ['uuid', 'date-time']);

/** Validators whose schema has a top-level `metadata` property: `check` applies METADATA_LIMITS to it. */
const takesMetadata = new WeakSet<ValidateFunction>();

/** The schema of a `metadata` field; its size limits (metadata-limits.ts) are checked by `check`. */
export const METADATA_SCHEMA = { type: 'object' } as const;

/**
 * Compiles a request schema; `check` adds the control-character rule to every one of them, and the
 * metadata limits to every one with a top-level `metadata` property.
 */
export function compile<T>(schema: object): ValidateFunction<T> {
  const validate = ajv.compile<T>(schema);
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (properties && 'metadata' in properties) takesMetadata.add(validate);
  return validate;
}

function describe(error: ErrorObject): { param: string; message: string } {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    const param = path ? `${path}.${missing}` : missing;
    return { param, message: `${param} is required.` };
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    const param = path ? `${path}.${extra}` : extra;
    return { param, message: `${param} is not a known field.` };
  }
  if (error.keyword === 'false schema' && path) return { param: path, message: `${path} is not allowed in combination with the other fields (see the channel).` };
  return { param: path || '(body)', message: `${path || 'The body'} ${error.message ?? 'is invalid'}.` };
}

/** `check`'s first rule alone, for a route that reads some values itself before its schema: 400 `invalid_request` on the first control character. */
export function refuseControlCharacters(value: unknown): void {
  const control = findControlCharacter(value);
  if (control) throw new ApiError('invalid_request', control.message, { param: control.param });
}

/**
 * Validates or throws `invalid_request` naming the first offending parameter. Before the schema,
 * every string and field name of the input (nested metadata included) is checked for control
 * characters, and `metadata` against METADATA_LIMITS, so no schema has to repeat those rules and
 * none can forget them.
 */
export function check<T>(validate: ValidateFunction<T>, value: unknown): T {
  refuseControlCharacters(value);
  if (takesMetadata.has(validate) && value !== null && typeof value === 'object' && 'metadata' in value) {
    const problem = findMetadataProblem((value as { metadata: unknown }).metadata);
    if (problem) throw new ApiError('invalid_request', problem.message, { param: problem.param });
  }
  if (validate(value)) return value;
  const { param, message } = describe(validate.errors![0]);
  throw new ApiError('invalid_request', message, { param });
}
