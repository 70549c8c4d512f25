import type { ValidateFunction } from 'ajv';
import { BALANCE_TRANSACTION_TYPES } from '../../domain/balance-transaction';
import { ID_PREFIX, type IdKind } from '../../domain/ids';
import { DEFAULT_LIST_LIMIT, INSTANT_PATTERN, MAX_LIST_LIMIT, type ListFilterParser } from '../../services/list-filters';
import { ALLOWED as BALANCE_TRANSACTION_FILTERS } from '../schemas/list-balance-transactions';
import { CONTROL_FREE, CURRENCY_ENUM } from './exact';

/** An OpenAPI parameter object. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  /** An array query parameter: `form` with `explode`, the parameter repeated (`type=a&type=b`). */
  style?: 'form';
  explode?: boolean;
  schema: unknown;
}

/** `{id}` of a resource of `kind`: its prefix and 24 letters and digits (src/http/path-id.ts). */
export function idParameter(kind: IdKind | IdKind[], description?: string): Parameter {
  const prefixes = (Array.isArray(kind) ? kind : [kind]).map((k) => ID_PREFIX[k]);
  const schema = { type: 'string', pattern: `^(${prefixes.join('|')})[0-9A-Za-z]{24}$` };
  return { name: 'id', in: 'path', required: true, ...(description ? { description } : {}), schema };
}

/**
 * Query parameters from an ajv query schema (the very property schemas it validates with), with the
 * `descriptions` given. An array property is a parameter repeated for each value (`style: form,
 * explode: true`: `type=a&type=b`), the only way the API reads several.
 */
export function queryFromSchema(validate: ValidateFunction, omit: readonly string[] = [], descriptions: Record<string, string> = {}): Parameter[] {
  const properties = (validate.schema as { properties: Record<string, unknown> }).properties;
  return Object.entries(properties)
    .filter(([name]) => !omit.includes(name))
    .map(([name, schema]) => ({
      name,
      in: 'query',
      ...(descriptions[name] ? { description: descriptions[name] } : {}),
      ...((schema as { type?: unknown }).type === 'array' ? { style: 'form' as const, explode: true } : {}),
      schema: name === 'cursor' ? { ...(schema as object), 'x-opaque-token': true } : schema,
    }));
}

/** The description of a repeated event-type parameter (src/http/schemas/event-type-filter.ts). */
export function eventTypesDescription(param: string, what: string): string {
  return `Only ${what} of these event types (GET /v1/event-types), each named once. For several, repeat the parameter: \`${param}=transaction.succeeded&${param}=refund.succeeded\`; a comma-separated list is not read (400).`;
}

const LIMIT: Parameter = { name: 'limit', in: 'query', description: `Items per page, 1–${MAX_LIST_LIMIT}.`, schema: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT } };
/** An opaque token: only a `next_cursor` this list returned, unchanged (anything else is 400); base64url. */
const CURSOR: Parameter = { name: 'cursor', in: 'query', description: 'The `next_cursor` of the previous page of this list, unchanged: an opaque token, anything else is 400.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$', 'x-opaque-token': true } };
export const INSTANT = 'ISO 8601: `YYYY-MM-DD` (midnight UTC) or a date-time with `Z` or ±hh:mm; exclusive.';

const instant = (name: string, description: string): Parameter => ({ name, in: 'query', description, schema: { type: 'string', pattern: INSTANT_PATTERN } });

/** The page parameters of every list. */
export const PAGE_PARAMETERS = [LIMIT, CURSOR];

/** The query of a list with filters (src/services/list-filters.ts), from the route's own filter definition. */
export function listFilterParameters(list: ListFilterParser): Parameter[] {
  const { spec } = list;
  return [
    ...PAGE_PARAMETERS,
    { name: 'status', in: 'query', schema: { type: 'string', enum: [...spec.statuses] } },
    instant('created_after', INSTANT),
    instant('created_before', `${INSTANT} Later than created_after.`),
    ...(spec.channels ? [{ name: 'channel', in: 'query' as const, schema: { type: 'string', enum: [...spec.channels] } }] : []),
    ...(spec.referenceColumn ? [{ name: 'reference', in: 'query' as const, description: 'The merchant\'s reference, exact match.', schema: { type: 'string', minLength: 1, maxLength: 100, pattern: CONTROL_FREE } }] : []),
    ...(spec.chargeColumn ? [{ name: 'charge', in: 'query' as const, description: 'A charge id, exact match.', schema: { type: 'string', pattern: `^${ID_PREFIX.charge}[0-9A-Za-z]{24}$` } }] : []),
  ];
}

/** GET /v1/balance-transactions (src/http/schemas/list-balance-transactions.ts): each of its known filters. */
export function balanceTransactionParameters(): Parameter[] {
  const described: Record<string, Parameter> = {
    limit: LIMIT,
    cursor: CURSOR,
    type: { name: 'type', in: 'query', schema: { type: 'string', enum: [...BALANCE_TRANSACTION_TYPES] } },
    source: { name: 'source', in: 'query', description: 'A charge, payout, refund, settlement or dispute id.', schema: idParameter(['charge', 'payout', 'refund', 'settlement', 'dispute']).schema },
    currency: { name: 'currency', in: 'query', description: 'ISO 4217, one of GET /v1/reference/currencies.', schema: { type: 'string', enum: CURRENCY_ENUM } },
    created_after: instant('created_after', INSTANT),
    created_before: instant('created_before', `${INSTANT} Later than created_after.`),
  };
  return BALANCE_TRANSACTION_FILTERS.map((name) => {
    const parameter = described[name];
    if (!parameter) throw new Error(`openapi: the balance-transaction filter ${name} has no description`);
    return parameter;
  });
}
