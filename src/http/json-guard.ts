import { visit, type JSONPath } from 'jsonc-parser';
import { FORBIDDEN_KEYS } from '../support/forbidden-keys';

/**
 * What `JSON.parse` lets through silently and the API refuses (issue 32, "Hostile bodies"), found in
 * one pass over the text of a body that is valid JSON and at most MAX_JSON_DEPTH deep (json-depth.ts
 * runs first, so jsonc-parser's recursive descent stays shallow):
 * - a key given twice in one object (`JSON.parse` keeps the last: a money field must not be read
 *   from whichever of two the client wrote last);
 * - a `__proto__` or `constructor` key anywhere (metadata included): never useful, and the keys a
 *   prototype-pollution attempt needs, so no copy of the body can ever meet one;
 * - an integer written beyond ±(2^53 − 1), or a number that overflows to Infinity: `JSON.parse`
 *   would round it (9007199254740993 becomes …992) and the API would act on another number;
 * - in the API's own fields (all of whose numbers are integers: amounts, timeout_seconds), a number
 *   not written as plain digits: `1.5`, `1e2`, `1.0` and `-0` are refused, not rounded or read as
 *   the integer they equal (a `1.0` or `100.00` is most likely a major-unit amount). A free-form
 *   member (metadata) may hold any finite JSON number.
 * Keys are compared decoded, so `"\u005f_proto__"` is `__proto__`.
 */
export interface JsonProblem {
  message: string;
  /** The field, as validate.ts names one (`metadata.a.0`); absent for the body itself. */
  param?: string;
}

export interface JsonGuardOptions {
  /** Whether a number at this path may be any finite JSON number (a free-form member) rather than a plain integer. */
  freeForm: (path: JSONPath) => boolean;
}

/** The API's bodies: every number outside `metadata` is an integer field. */
export const API_BODY: JsonGuardOptions = { freeForm: (path) => path[0] === 'metadata' };
/** A body that is not the API's (the partner's callbacks): no integer fields, the other rules hold. */
export const FOREIGN_BODY: JsonGuardOptions = { freeForm: () => true };

const PLAIN_INTEGER = /^-?(0|[1-9][0-9]*)$/;

class Found extends Error {
  constructor(readonly problem: JsonProblem) {
    super(problem.message);
  }
}

const nameOf = (path: JSONPath): string | undefined => (path.length === 0 ? undefined : path.join('.'));

function problemAt(path: JSONPath, message: (name: string) => string): Found {
  const param = nameOf(path);
  return new Found(param === undefined ? { message: message('The body') } : { message: message(param), param });
}

function numberProblem(lexeme: string, path: JSONPath, options: JsonGuardOptions): Found | undefined {
  const value = Number(lexeme);
  if (!Number.isFinite(value)) return problemAt(path, (name) => `${name} is a number too large to be represented.`);
  const integerLiteral = PLAIN_INTEGER.test(lexeme);
  if (integerLiteral && !Number.isSafeInteger(value)) {
    return problemAt(path, (name) => `${name} is beyond 2^53 - 1 (9007199254740991), the largest integer the API reads exactly.`);
  }
  if (options.freeForm(path)) return undefined;
  if (!integerLiteral || lexeme === '-0') {
    return problemAt(path, (name) => `${name} must be a whole number written in digits (no fraction, exponent or -0; got ${lexeme.slice(0, 40)}).`);
  }
  return undefined;
}

/** The first problem of valid JSON `text`, or undefined. */
export function findJsonProblem(text: string, options: JsonGuardOptions = API_BODY): JsonProblem | undefined {
  const keys: Set<string>[] = [];
  try {
    visit(text, {
      onObjectBegin: () => {
        keys.push(new Set());
      },
      onObjectEnd: () => {
        keys.pop();
      },
      onObjectProperty: (property, _offset, _length, _line, _char, pathSupplier) => {
        const seen = keys[keys.length - 1];
        const path = [...pathSupplier(), property];
        if (FORBIDDEN_KEYS.has(property)) throw problemAt(path, (name) => `${name}: the key ${JSON.stringify(property)} is not allowed anywhere in a body.`);
        if (seen.has(property)) throw problemAt(path, (name) => `${name} is given more than once; send each field once.`);
        seen.add(property);
      },
      onLiteralValue: (value, offset, length, _line, _char, pathSupplier) => {
        if (typeof value !== 'number') return;
        const found = numberProblem(text.slice(offset, offset + length), pathSupplier(), options);
        if (found) throw found;
      },
    });
  } catch (error) {
    if (error instanceof Found) return error.problem;
    throw error;
  }
  return undefined;
}
