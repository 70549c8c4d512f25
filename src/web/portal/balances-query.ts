import { BALANCE_TRANSACTION_TYPES, SOURCE_KINDS, type BalanceTransactionType } from '../../domain/balance-transaction';
import { ApiError } from '../../domain/errors';
import { isIdOf } from '../../domain/ids';
import { parseBalanceTransactionQuery } from '../../http/schemas/list-balance-transactions';
import type { BalanceTransactionQuery } from '../../persistence/ledger/balance-transaction-store';
import { encodeListCursor } from '../../persistence/sql-values';
import { createdAfterDay, createdBeforeDay, utcDay } from './day-range';

/**
 * The balance transactions filters of the portal's Balances page and its CSV export: the filters of
 * GET /v1/balance-transactions (type, currency, source, created range), checked with friendly messages
 * and then by the API's own parser (parseBalanceTransactionQuery), which also builds the store's query.
 * The created range is
 * of whole UTC days, both ends included (`from`, `to`: YYYY-MM-DD, what a date input sends); the
 * store's bounds are exclusive, so `from` becomes "after the millisecond before its midnight" (every
 * posting is dated to the millisecond) and `to` "before the next midnight".
 */
export interface BalanceFilters {
  type?: BalanceTransactionType;
  currency?: string;
  source?: string;
  from?: string;
  to?: string;
}

export const FILTER_NAMES = ['type', 'currency', 'source', 'from', 'to'] as const;


export class FilterError extends Error {}

/** A single string value or undefined (an empty field is "no filter"); a repeated parameter is refused. */
function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new FilterError(`${name} must be given once.`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** The filters of a page or export request; a value outside what is allowed throws FilterError (its message is for the page). */
export function parseFilters(query: Record<string, unknown>, currencies: ReadonlySet<string>): BalanceFilters {
  const filters: BalanceFilters = {};
  const type = single(query, 'type');
  if (type !== undefined) {
    if (!(BALANCE_TRANSACTION_TYPES as readonly string[]).includes(type)) throw new FilterError(`Type must be one of: ${BALANCE_TRANSACTION_TYPES.join(', ')}.`);
    filters.type = type as BalanceTransactionType;
  }
  const currency = single(query, 'currency');
  if (currency !== undefined) {
    if (!currencies.has(currency)) throw new FilterError('Currency must be one of the currencies of the reference list.');
    filters.currency = currency;
  }
  const source = single(query, 'source');
  if (source !== undefined) {
    if (!SOURCE_KINDS.some((k) => isIdOf(k, source))) throw new FilterError('Source must be the id of a charge, payout, refund, settlement or dispute.');
    filters.source = source;
  }
  const from = single(query, 'from');
  const to = single(query, 'to');
  if (from !== undefined && utcDay(from) === null) throw new FilterError('"From" must be a date, YYYY-MM-DD.');
  if (to !== undefined && utcDay(to) === null) throw new FilterError('"To" must be a date, YYYY-MM-DD.');
  if (from !== undefined && to !== undefined && utcDay(from)! > utcDay(to)!) throw new FilterError('"From" must not be later than "To".');
  if (from !== undefined) filters.from = from;
  if (to !== undefined) filters.to = to;
  // The same query the API would be sent: its parser has the last word.
  try {
    parseBalanceTransactionQuery(apiQuery(filters, 1));
  } catch (error) {
    if (error instanceof ApiError) throw new FilterError(error.message);
    throw error;
  }
  return filters;
}

/**
 * The filters in the API's terms (`created_after` is the millisecond before `from`'s midnight, every
 * posting being dated to the millisecond; `created_before` the midnight after `to`).
 */
function apiQuery(filters: BalanceFilters, limit: number): Record<string, string> {
  const query: Record<string, string> = { limit: String(limit) };
  if (filters.type) query.type = filters.type;
  if (filters.currency) query.currency = filters.currency;
  if (filters.source) query.source = filters.source;
  if (filters.from) query.created_after = createdAfterDay(filters.from)!;
  if (filters.to) query.created_before = createdBeforeDay(filters.to)!;
  return query;
}

/** The store's query for these filters (a page of `limit` from `cursor`), made by the API's own parser (GET /v1/balance-transactions). */
export function storeQuery(filters: BalanceFilters, limit: number, cursor: BalanceTransactionQuery['cursor']): BalanceTransactionQuery {
  return { ...parseBalanceTransactionQuery(apiQuery(filters, limit)), cursor };
}

/** A page cursor, read back by the API's parser: exactly a next_cursor of this list, else undefined. */
export function decodeCursor(text: unknown): BalanceTransactionQuery['cursor'] | undefined {
  if (text === undefined) return null;
  if (typeof text !== 'string') return undefined;
  try {
    return parseBalanceTransactionQuery({ cursor: text }).cursor;
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

export const encodeCursor = (last: { id: string; createdAt: string }): string => encodeListCursor({ createdAt: last.createdAt, id: last.id });

/** The filters as a query string (no leading `?`), with more parameters after them. */
export function filterQuery(filters: BalanceFilters, extra: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const name of FILTER_NAMES) if (filters[name] !== undefined) params.set(name, filters[name]!);
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) params.set(name, value);
  return params.toString();
}
