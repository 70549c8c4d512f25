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
 *   whose written value is not exactly a safe integer: `1.5`, and also `4503599627370496.5` (which
 *   `JSON.parse` rounds to an integer) or `9007199254740993.0` and `1e16` (beyond 2^53). A written
 *   integer in another notation is the integer it is, as JSON Schema's `integer` says: `1.0`, `1e2`,
 *   `150E2` and `-0` are read as 1, 100, 15000 and 0 (then the schema's bounds apply), so what the
 *   OpenAPI document allows is accepted. The check is on the text, digit by digit, never on the
 *   rounded double. A free-form member (metadata) may hold any finite JSON number; only an integer
 *   written in plain digits beyond 2^53 is refused there (it would be rounded).
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
const JSON_NUMBER = /^-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * What a JSON number's text is exactly, digit by digit: `fraction` when it has a nonzero digit after
 * the point (once the exponent is applied), else an integer, `safe` within ±(2^53 − 1) or `unsafe`.
 */
export function writtenInteger(lexeme: string): 'safe' | 'unsafe' | 'fraction' {
  const match = JSON_NUMBER.exec(lexeme);
  if (!match) return 'fraction';
  const digits = match[1] + (match[2] ?? '');
  const point = match[1].length + Number(match[3] ?? '0'); // where the point falls in `digits`
  const fraction = digits.slice(Math.max(0, Math.min(point, digits.length)));
  if (/[1-9]/.test(fraction)) return 'fraction';
  if (!/[1-9]/.test(digits)) return 'safe'; // zero, however written
  if (point - digits.length > 16) return 'unsafe'; // at least 10^17
  const whole = point >= digits.length ? digits + '0'.repeat(point - digits.length) : digits.slice(0, point);
  return BigInt(whole) <= MAX_SAFE ? 'safe' : 'unsafe';
}

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

const BEYOND = (name: string) => `${name} is beyond 2^53 - 1 (9007199254740991), the largest integer the API reads exactly.`;

function numberProblem(lexeme: string, path: JSONPath, options: JsonGuardOptions): Found | undefined {
  if (!Number.isFinite(Number(lexeme))) return problemAt(path, (name) => `${name} is a number too large to be represented.`);
  const written = writtenInteger(lexeme);
  if (options.freeForm(path)) return PLAIN_INTEGER.test(lexeme) && written === 'unsafe' ? problemAt(path, BEYOND) : undefined;
  if (written === 'unsafe') return problemAt(path, BEYOND);
  if (written === 'fraction') return problemAt(path, (name) => `${name} must be a whole number (got ${lexeme.slice(0, 40)}).`);
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
