import type { ValidateFunction } from 'ajv';
import { BALANCE_TRANSACTION_TYPES } from '../../domain/balance-transaction';
import { ID_PREFIX, type IdKind } from '../../domain/ids';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, type ListFilterParser } from '../../services/list-filters';
import { ALLOWED as BALANCE_TRANSACTION_FILTERS } from '../schemas/list-balance-transactions';

/** An OpenAPI parameter object. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: unknown;
}

/** `{id}` of a resource of `kind`: its prefix and 24 letters and digits (src/http/path-id.ts). */
export function idParameter(kind: IdKind | 'any', description?: string): Parameter {
  const schema = kind === 'any' ? { type: 'string' } : { type: 'string', pattern: `^${ID_PREFIX[kind]}[0-9A-Za-z]{24}$` };
  return { name: 'id', in: 'path', required: true, ...(description ? { description } : {}), schema };
}

/** Query parameters from an ajv query schema (the very property schemas it validates with). */
export function queryFromSchema(validate: ValidateFunction, omit: string[] = []): Parameter[] {
  const properties = (validate.schema as { properties: Record<string, unknown> }).properties;
  return Object.entries(properties)
    .filter(([name]) => !omit.includes(name))
    .map(([name, schema]) => ({ name, in: 'query', schema }));
}

const LIMIT: Parameter = { name: 'limit', in: 'query', description: `Items per page, 1–${MAX_LIST_LIMIT}.`, schema: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT } };
const CURSOR: Parameter = { name: 'cursor', in: 'query', description: 'The `next_cursor` of the previous page, unchanged.', schema: { type: 'string' } };
const INSTANT = 'ISO 8601: `YYYY-MM-DD` (midnight UTC) or a date-time with `Z` or ±hh:mm; exclusive.';

/** The page parameters of every list. */
export const PAGE_PARAMETERS = [LIMIT, CURSOR];

/** The query of a list with filters (src/services/list-filters.ts), from the route's own filter definition. */
export function listFilterParameters(list: ListFilterParser): Parameter[] {
  const { spec } = list;
  return [
    ...PAGE_PARAMETERS,
    { name: 'status', in: 'query', schema: { type: 'string', enum: [...spec.statuses] } },
    { name: 'created_after', in: 'query', description: INSTANT, schema: { type: 'string' } },
    { name: 'created_before', in: 'query', description: `${INSTANT} Later than created_after.`, schema: { type: 'string' } },
    ...(spec.channels ? [{ name: 'channel', in: 'query' as const, schema: { type: 'string', enum: [...spec.channels] } }] : []),
    ...(spec.referenceColumn ? [{ name: 'reference', in: 'query' as const, description: 'The merchant\'s reference, exact match.', schema: { type: 'string', minLength: 1, maxLength: 100 } }] : []),
    ...(spec.chargeColumn ? [{ name: 'charge', in: 'query' as const, description: 'A charge id, exact match.', schema: { type: 'string', pattern: `^${ID_PREFIX.charge}[0-9A-Za-z]{24}$` } }] : []),
  ];
}

/** GET /v1/balance-transactions (src/http/schemas/list-balance-transactions.ts): each of its known filters. */
export function balanceTransactionParameters(): Parameter[] {
  const described: Record<string, Parameter> = {
    limit: LIMIT,
    cursor: CURSOR,
    type: { name: 'type', in: 'query', schema: { type: 'string', enum: [...BALANCE_TRANSACTION_TYPES] } },
    source: { name: 'source', in: 'query', description: 'A charge, payout, refund, settlement or dispute id.', schema: { type: 'string' } },
    currency: { name: 'currency', in: 'query', description: 'ISO 4217, one of GET /v1/reference/currencies.', schema: { type: 'string', pattern: '^[A-Z]{3}$' } },
    created_after: { name: 'created_after', in: 'query', description: INSTANT, schema: { type: 'string' } },
    created_before: { name: 'created_before', in: 'query', description: `${INSTANT} Later than created_after.`, schema: { type: 'string' } },
  };
  return BALANCE_TRANSACTION_FILTERS.map((name) => {
    const parameter = described[name];
    if (!parameter) throw new Error(`openapi: the balance-transaction filter ${name} has no description`);
    return parameter;
  });
}
