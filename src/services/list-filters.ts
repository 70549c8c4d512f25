import { ApiError } from '../domain/errors';
import { isIdOf, type IdKind } from '../domain/ids';
import { encodeListCursor, type ListCursor } from '../persistence/sql-values';
import { findControlCharacter } from '../domain/control-characters';
import { listCursor } from './list-cursor';

/**
 * The list filters of INTERFACE.md "Objects" for any payment list (`GET /v1/charges|payouts|refunds|…`),
 * parsed strictly and turned into SQL, newest first.
 *
 * Usage (a list route and its store):
 *
 *   // once, at module level: the list's id kind (for `cursor`), its statuses, and the optional filters
 *   export const PAYOUT_LIST = defineListFilters({ kind: 'payout', statuses: PAYOUT_STATUSES,
 *     channels: ['mobile_money', 'bank'], referenceColumn: 'your_reference' });
 *   // in the route: 400 invalid_request with `param` for anything wrong, before any query
 *   const filters = PAYOUT_LIST.parse({ ...ctx.query });
 *   // in the store (src/persistence/charges/charge-list-store.ts shows one): `where merchant_id = ? and environment = ?` + page.sql, params [m, e, ...page.params]
 *   const page = PAYOUT_LIST.pageSql(filters);
 *   // rows fetched with `limit + 1` (page.sql ends with `limit ?`), rendered with renderList
 *   // (routes/list-page.ts, objects) or renderListText (below, objects already JSON text): both need
 *   // `id` and `createdAt` (ISO, as toISOString writes it) on each row, for next_cursor
 *   renderList(rows, filters.limit, render)
 *
 * Query parameters: `limit` (1–100, default 10), `cursor` (a next_cursor of this list, unchanged),
 * `status` (one of `statuses`), `created_after` / `created_before` (ISO 8601: `YYYY-MM-DD` (UTC
 * midnight) or `YYYY-MM-DDThh:mm[:ss[.fraction]]` with `Z` or `±hh:mm`; both bounds exclusive; after
 * must be earlier than before), and, when the spec names them, `channel` (one of `channels`),
 * `reference` (exact match on `referenceColumn`: the merchant's reference) and `charge` (a `txn_` id,
 * exact match on `chargeColumn`). Any other parameter, a repeated one, or a bad value is 400
 * `invalid_request` naming it in `param`.
 *
 * The table needs columns `id`, `status`, `created_at` (timestamptz) and, for `channel`, `channel`.
 * Column names come from the spec (code), never from the query.
 */
export interface ListFilterSpec {
  /** Id kind of the list's rows: `cursor` carries one. */
  kind: IdKind;
  statuses: readonly string[];
  /** Allows `channel` (column `channel`) with these values. */
  channels?: readonly string[];
  /** Allows `reference`, matched exactly against this column. */
  referenceColumn?: string;
  /** Allows `charge` (a charge id), matched exactly against this column. */
  chargeColumn?: string;
}

export interface ListFilters {
  limit: number;
  cursor: ListCursor | null;
  status?: string;
  /** As sent (validated ISO 8601); PostgreSQL reads it with its offset, to the microsecond. */
  createdAfter?: string;
  createdBefore?: string;
  channel?: string;
  reference?: string;
  charge?: string;
}

export interface ListFilterParser {
  readonly spec: ListFilterSpec;
  parse(query: Record<string, unknown>): ListFilters;
  /** ` and … order by created_at desc, id desc limit ?` and its parameters (limit + 1 rows). */
  pageSql(filters: ListFilters): { sql: string; params: unknown[] };
}

export const DEFAULT_LIST_LIMIT = 10;
export const MAX_LIST_LIMIT = 100;
const MAX_REFERENCE_LENGTH = 100;

const bad = (param: string, message: string) => new ApiError('invalid_request', message, { param });

export function defineListFilters(spec: ListFilterSpec): ListFilterParser {
  const allowed = new Set(['limit', 'cursor', 'status', 'created_after', 'created_before']);
  if (spec.channels) allowed.add('channel');
  if (spec.referenceColumn) allowed.add('reference');
  if (spec.chargeColumn) allowed.add('charge');

  return {
    spec,
    parse(query) {
      const q = strictQuery(query, [...allowed]);
      const filters: ListFilters = { limit: parseLimit(q.limit), cursor: listCursor(q.cursor, spec.kind), ...createdRange(q) };
      if (q.status !== undefined) filters.status = oneOf('status', q.status, spec.statuses);
      if (q.channel !== undefined) filters.channel = oneOf('channel', q.channel, spec.channels ?? []);
      if (q.reference !== undefined) {
        if (q.reference.length < 1 || q.reference.length > MAX_REFERENCE_LENGTH) throw bad('reference', `reference must be 1 to ${MAX_REFERENCE_LENGTH} characters.`);
        filters.reference = q.reference;
      }
      if (q.charge !== undefined) {
        if (!isIdOf('charge', q.charge)) throw bad('charge', 'charge must be a charge id: "txn_" followed by 24 letters and digits.');
        filters.charge = q.charge;
      }
      return filters;
    },
    pageSql(filters) {
      const clauses: string[] = [];
      const params: unknown[] = [];
      const add = (clause: string, ...values: unknown[]) => {
        clauses.push(clause);
        params.push(...values);
      };
      if (filters.status !== undefined) add('status = ?', filters.status);
      if (filters.channel !== undefined) add('channel = ?', filters.channel);
      if (filters.reference !== undefined && spec.referenceColumn) add(`${spec.referenceColumn} = ?`, filters.reference);
      if (filters.charge !== undefined && spec.chargeColumn) add(`${spec.chargeColumn} = ?`, filters.charge);
      if (filters.createdAfter !== undefined) add('created_at > ?::timestamptz', filters.createdAfter);
      if (filters.createdBefore !== undefined) add('created_at < ?::timestamptz', filters.createdBefore);
      if (filters.cursor) add('(created_at, id) < (?::timestamptz, ?)', filters.cursor.createdAt, filters.cursor.id);
      const where = clauses.map((c) => ` and ${c}`).join('');
      return { sql: `${where} order by created_at desc, id desc limit ?`, params: [...params, filters.limit + 1] };
    },
  };
}

/**
 * A list's query read strictly: only the `allowed` names, each given once, with no control character;
 * anything else is 400 `invalid_request` naming the parameter, before any query.
 */
export function strictQuery(query: Record<string, unknown>, allowed: readonly string[], noun: 'filter' | 'parameter' = 'filter'): Record<string, string | undefined> {
  for (const [name, value] of Object.entries(query)) {
    if (!allowed.includes(name)) throw bad(name, `${name} is not a ${noun} of this list; known: ${allowed.join(', ')}.`);
    if (typeof value !== 'string') throw bad(name, `${name} must be given once.`);
  }
  const control = findControlCharacter(query);
  if (control) throw bad(control.param, control.message);
  return query as Record<string, string | undefined>;
}

/** `created_after` / `created_before` (strict ISO 8601, both exclusive; after earlier than before), as sent. */
export function createdRange(q: Record<string, string | undefined>): { createdAfter?: string; createdBefore?: string } {
  const after = q.created_after === undefined ? undefined : isoInstant('created_after', q.created_after);
  const before = q.created_before === undefined ? undefined : isoInstant('created_before', q.created_before);
  if (after && before && compareInstants(after, before) >= 0) throw bad('created_before', 'created_before must be later than created_after.');
  return { ...(after ? { createdAfter: after.text } : {}), ...(before ? { createdBefore: before.text } : {}) };
}

export function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIST_LIMIT;
  if (!/^[1-9][0-9]{0,2}$/.test(text) || Number(text) > MAX_LIST_LIMIT) throw bad('limit', `limit must be an integer from 1 to ${MAX_LIST_LIMIT}.`);
  return Number(text);
}

function oneOf(param: string, value: string, values: readonly string[]): string {
  if (!values.includes(value)) throw bad(param, `${param} must be one of: ${values.join(', ')}.`);
  return value;
}

/** A validated instant: the text as sent, and its position in time (UTC milliseconds, then microseconds within). */
export interface Instant {
  text: string;
  ms: number;
  micros: number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Strict ISO 8601: a real calendar date (year 0001–9999), hours 00–23, minutes and seconds 00–59, at
 * most microseconds, and an explicit offset (`Z` or ±hh:mm up to ±14:00) unless the value is a date
 * alone (midnight UTC). Anything else is 400 on `param`.
 */
export function isoInstant(param: string, text: string): Instant {
  const refuse = () => bad(param, `${param} must be an ISO 8601 date-time with a time zone, e.g. 2026-11-23T13:00:00Z (or a date, 2026-11-23, for midnight UTC).`);
  const date = ISO_DATE.exec(text);
  const match = date ?? ISO_DATE_TIME.exec(text);
  if (!match) throw refuse();
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) throw refuse();
  if (date) return { text: `${text}T00:00:00Z`, ms: utcMs(year, month, day, 0, 0, 0), micros: 0 };
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) throw refuse();
  let offsetMinutes = 0;
  if (match[8] !== 'Z') {
    const [oh, om] = [Number(match[9]), Number(match[10])];
    if (om > 59 || oh * 60 + om > 14 * 60) throw refuse();
    offsetMinutes = (match[8].startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = (match[7] ?? '').padEnd(6, '0');
  const ms = utcMs(year, month, day, hour, minute, second) + Number(fraction.slice(0, 3)) - offsetMinutes * 60_000;
  return { text, ms, micros: Number(fraction.slice(3)) };
}

const YEAR = '(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})';
const LEAP_YEAR = '([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)';
const DATE = `(${YEAR}-(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|${YEAR}-(0[469]|11)-(0[1-9]|[12][0-9]|30)|${YEAR}-02-(0[1-9]|1[0-9]|2[0-8])|${LEAP_YEAR}-02-29)`;
const TIME = 'T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9]|[+-]14:00)';
/**
 * What isoInstant accepts, as a JSON Schema pattern (the OpenAPI document's, and the ajv schemas' that
 * take `created_after` / `created_before`): a real calendar date, years 0001–9999, at most
 * microseconds, offsets up to ±14:00.
 */
export const INSTANT_PATTERN = `^${DATE}(${TIME})?$`;

export function compareInstants(a: Instant, b: Instant): number {
  return a.ms !== b.ms ? a.ms - b.ms : a.micros - b.micros;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // setUTCFullYear, not Date.UTC: years below 100 stay as written
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

/**
 * The list envelope (INTERFACE.md "Lists") around objects already serialised as JSON text (objects
 * whose metadata is kept as the merchant sent it), over rows fetched with `limit + 1`, newest first.
 */
export function renderListText<T extends { id: string; createdAt: string }>(rows: T[], limit: number, render: (row: T) => string): string {
  const kept = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = kept[kept.length - 1];
  const next = hasMore && last ? `,"next_cursor":${JSON.stringify(encodeListCursor({ createdAt: last.createdAt, id: last.id }))}` : '';
  return `{"object":"list","data":[${kept.map(render).join(',')}],"has_more":${hasMore}${next}}`;
}
