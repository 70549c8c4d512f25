import type { ValidateFunction } from 'ajv';
import { BALANCE_TRANSACTION_TYPES } from '../../domain/balance-transaction';
import { ID_PREFIX, type IdKind } from '../../domain/ids';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, type ListFilterParser } from '../../services/list-filters';
import { ALLOWED as BALANCE_TRANSACTION_FILTERS } from '../schemas/list-balance-transactions';
import { CONTROL_FREE, CURRENCY_ENUM } from './exact';

/** An OpenAPI parameter object. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: unknown;
}

/** `{id}` of a resource of `kind`: its prefix and 24 letters and digits (src/http/path-id.ts). */
export function idParameter(kind: IdKind | IdKind[], description?: string): Parameter {
  const prefixes = (Array.isArray(kind) ? kind : [kind]).map((k) => ID_PREFIX[k]);
  const schema = { type: 'string', pattern: `^(${prefixes.join('|')})[0-9A-Za-z]{24}$` };
  return { name: 'id', in: 'path', required: true, ...(description ? { description } : {}), schema };
}

/** Query parameters from an ajv query schema (the very property schemas it validates with). */
export function queryFromSchema(validate: ValidateFunction, omit: string[] = []): Parameter[] {
  const properties = (validate.schema as { properties: Record<string, unknown> }).properties;
  return Object.entries(properties)
    .filter(([name]) => !omit.includes(name))
    .map(([name, schema]) => ({ name, in: 'query', schema: name === 'cursor' ? { ...(schema as object), 'x-opaque-token': true } : schema }));
}

const LIMIT: Parameter = { name: 'limit', in: 'query', description: `Items per page, 1–${MAX_LIST_LIMIT}.`, schema: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT } };
/** An opaque token: only a `next_cursor` this list returned, unchanged (anything else is 400); base64url. */
const CURSOR: Parameter = { name: 'cursor', in: 'query', description: 'The `next_cursor` of the previous page of this list, unchanged: an opaque token, anything else is 400.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,200}$', 'x-opaque-token': true } };
const INSTANT = 'ISO 8601: `YYYY-MM-DD` (midnight UTC) or a date-time with `Z` or ±hh:mm; exclusive.';

const YEAR = '(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})';
const LEAP_YEAR = '([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)';
const DATE = `(${YEAR}-(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|${YEAR}-(0[469]|11)-(0[1-9]|[12][0-9]|30)|${YEAR}-02-(0[1-9]|1[0-9]|2[0-8])|${LEAP_YEAR}-02-29)`;
const TIME = 'T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9]|[+-]14:00)';
/** src/services/list-filters.ts isoInstant: a real calendar date, years 0001–9999, at most microseconds, offsets up to ±14:00. */
export const INSTANT_PATTERN = `^${DATE}(${TIME})?$`;
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
