import { EVENT_TYPES } from '../../domain/event-types';
import { ApiError } from '../../domain/errors';
import { findControlCharacter } from '../../domain/control-characters';

const KNOWN = EVENT_TYPES.map((t) => t.type);

/**
 * The schema of a query parameter naming event types (GET /v1/events `type`, GET
 * /v1/webhook-endpoints/{id}/deliveries `event_type`): one or more of GET /v1/event-types, each once.
 * The parameter is repeated for several (`type=a&type=b`, OpenAPI `style: form, explode: true`);
 * `eventTypesOf` makes a single value an array of one before the schema reads it.
 *
 * A comma-separated list (`type=a,b`) is not read: it is refused like any unknown type. The document
 * says exactly what is accepted (an array of the known names, repeated), and one way of sending
 * several keeps a client's, a fuzzer's and the API's reading the same.
 */
export function eventTypesSchema(): Record<string, unknown> {
  return { type: 'array', minItems: 1, maxItems: KNOWN.length, uniqueItems: true, items: { type: 'string', enum: [...KNOWN] } };
}

const bad = (param: string, message: string) => new ApiError('invalid_request', message, { param });

/**
 * The event types of `query[param]` (absent: undefined), checked before the route's schema so that
 * the refusal names `param` itself (not `param.1`) and says how to send several: every value a known
 * type (else 400 `invalid_request`: "`param` must be an event type of GET /v1/event-types …"), none
 * twice. Puts the array back in `query[param]`, for the schema.
 */
export function eventTypesOf(query: Record<string, unknown>, param: string): string[] | undefined {
  const raw = query[param];
  if (raw === undefined) return undefined;
  const values = Array.isArray(raw) ? raw : [raw];
  const seen = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string') throw bad(param, `${param} must be an event type.`);
    const control = findControlCharacter({ [param]: value });
    if (control) throw bad(param, control.message);
    if (!KNOWN.includes(value)) {
      throw bad(param, `${param} must be an event type of GET /v1/event-types; for several, repeat the parameter (${param}=transaction.succeeded&${param}=refund.succeeded): a comma-separated list is not read.`);
    }
    if (seen.has(value)) throw bad(param, `${param} names ${value} twice: give each event type once.`);
    seen.add(value);
  }
  query[param] = values;
  return values as string[];
}
