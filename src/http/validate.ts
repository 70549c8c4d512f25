import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError } from '../domain/errors';

const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, useDefaults: false });
addFormats(ajv, ['uuid']);

export function compile<T>(schema: object): ValidateFunction<T> {
  return ajv.compile<T>(schema);
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

/** Validates or throws `invalid_request` naming the first offending parameter. */
export function check<T>(validate: ValidateFunction<T>, value: unknown): T {
  if (validate(value)) return value;
  const { param, message } = describe(validate.errors![0]);
  throw new ApiError('invalid_request', message, { param });
}
