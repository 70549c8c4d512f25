import { CHANNELS, CHARGE_STATUSES } from '../../domain/charge-status';
import { DISPUTE_STATUSES } from '../../domain/dispute';
import { isIdOf, type IdKind } from '../../domain/ids';
import { PAYOUT_CHANNELS, PAYOUT_STATUSES } from '../../domain/payout';
import { REFUND_STATUSES } from '../../domain/refund';
import { SETTLEMENT_STATUSES } from '../../domain/settlement';
import { encodeListCursor, type ListCursor } from '../../persistence/sql-values';

/**
 * The Payments page's filters: the API lists' own (INTERFACE.md "Objects"; src/http/list-filters.ts,
 * the CHARGE_LIST, PAYOUT_LIST, REFUND_LIST, DISPUTE_LIST and SETTLEMENT_LIST specs), read from a GET
 * form. Only src/main.ts may import src/http/ (test/unit/architecture.test.ts), so the small parsing
 * is repeated here from the domain's vocabularies: a value that is not one the API accepts is ignored
 * (and named on the page), never sent on; the clause handed to the list stores has the same shape as
 * the API's (column names from code, every value bound, newest first, `limit + 1` rows).
 */

export const PAYMENT_TABS = ['charges', 'payouts', 'refunds', 'disputes', 'settlements'] as const;
export type PaymentTab = (typeof PAYMENT_TABS)[number];

export interface TabSpec {
  label: string;
  /** The id kind of the list's rows (its cursor carries one). */
  kind: IdKind;
  statuses: readonly string[];
  channels?: readonly string[];
  /** The API's `reference` filter (the merchant's reference), on this column. */
  referenceColumn?: string;
  /** The API's `charge` filter, on this column. */
  chargeColumn?: string;
}

export const TABS: Record<PaymentTab, TabSpec> = {
  charges: { label: 'Charges', kind: 'charge', statuses: CHARGE_STATUSES, channels: CHANNELS, referenceColumn: 'your_reference' },
  payouts: { label: 'Payouts', kind: 'payout', statuses: PAYOUT_STATUSES, channels: PAYOUT_CHANNELS, referenceColumn: 'your_reference' },
  refunds: { label: 'Refunds', kind: 'refund', statuses: REFUND_STATUSES, chargeColumn: 'charge_id' },
  disputes: { label: 'Disputes', kind: 'dispute', statuses: DISPUTE_STATUSES, chargeColumn: 'charge_id' },
  settlements: { label: 'Settlements', kind: 'settlement', statuses: SETTLEMENT_STATUSES },
};

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const MAX_REFERENCE_LENGTH = 100;

/** What the form asked for, as far as it was valid (`ignored` names the fields that were not). */
export interface PaymentFilters {
  tab: PaymentTab;
  limit: number;
  cursor: ListCursor | null;
  status?: string;
  channel?: string;
  reference?: string;
  charge?: string;
  /** `YYYY-MM-DD`, UTC, inclusive. */
  createdFrom?: string;
  /** `YYYY-MM-DD`, UTC, inclusive (the whole day). */
  createdTo?: string;
  ignored: string[];
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A real calendar date `YYYY-MM-DD` (year 0001–9999), else undefined. */
function calendarDate(text: string): string | undefined {
  const match = ISO_DATE.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? text : undefined;
}

/** The day after a `YYYY-MM-DD` date, as an instant (midnight UTC). */
function dayAfter(date: string): string {
  const [year, month, day] = date.split('-').map(Number);
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day + 1);
  d.setUTCHours(0, 0, 0, 0);
  return d.toISOString();
}

/** Strictly a next_cursor this list handed out (as the API's listCursor reads it), else null. */
export function pageCursor(text: string, kind: IdKind): ListCursor | null {
  const parts = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (parts.length !== 2) return null;
  const [createdAt, id] = parts;
  if (!ISO_MILLIS.test(createdAt)) return null;
  const time = new Date(createdAt);
  if (Number.isNaN(time.getTime()) || time.toISOString() !== createdAt || !isIdOf(kind, id)) return null;
  const cursor = { createdAt, id };
  return encodeListCursor(cursor) === text ? cursor : null;
}

/** One query value: a repeated parameter or one with a control character counts as not given. */
function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (typeof value !== 'string' || value === '') return undefined;
  return /[\u0000-\u001f\u007f]/.test(value) ? undefined : value;
}

export function parsePaymentFilters(query: Record<string, unknown>): PaymentFilters {
  const typeText = single(query, 'type');
  const tab = (PAYMENT_TABS as readonly string[]).includes(typeText ?? '') ? (typeText as PaymentTab) : 'charges';
  const spec = TABS[tab];
  const ignored: string[] = [];
  if (typeText !== undefined && typeText !== tab) ignored.push('type');
  const filters: PaymentFilters = { tab, limit: DEFAULT_PAGE_SIZE, cursor: null, ignored };
  const given = (name: string) => {
    const value = single(query, name);
    if (value === undefined && query[name] !== undefined && query[name] !== '') ignored.push(name);
    return value;
  };

  const limit = given('limit');
  if (limit !== undefined) {
    if (/^[1-9][0-9]{0,2}$/.test(limit) && Number(limit) <= MAX_PAGE_SIZE) filters.limit = Number(limit);
    else ignored.push('limit');
  }
  const cursor = given('cursor');
  if (cursor !== undefined) {
    filters.cursor = pageCursor(cursor, spec.kind);
    if (!filters.cursor) ignored.push('cursor');
  }
  const status = given('status');
  if (status !== undefined) {
    if (spec.statuses.includes(status)) filters.status = status;
    else ignored.push('status');
  }
  const channel = given('channel');
  if (channel !== undefined) {
    if (spec.channels?.includes(channel)) filters.channel = channel;
    else ignored.push('channel');
  }
  const reference = given('reference');
  if (reference !== undefined) {
    if (spec.referenceColumn && reference.length <= MAX_REFERENCE_LENGTH) filters.reference = reference;
    else ignored.push('reference');
  }
  const charge = given('charge');
  if (charge !== undefined) {
    if (spec.chargeColumn && isIdOf('charge', charge)) filters.charge = charge;
    else ignored.push('charge');
  }
  const from = given('created_from');
  if (from !== undefined) {
    filters.createdFrom = calendarDate(from);
    if (!filters.createdFrom) ignored.push('created_from');
  }
  const to = given('created_to');
  if (to !== undefined) {
    filters.createdTo = calendarDate(to);
    if (!filters.createdTo) ignored.push('created_to');
  }
  if (filters.createdFrom && filters.createdTo && filters.createdTo < filters.createdFrom) {
    delete filters.createdTo;
    ignored.push('created_to');
  }
  return filters;
}

/**
 * The filter, order and limit clause the list stores take (as src/http/list-filters.ts `pageSql`
 * builds it for the API): ` and …` conditions, newest first, `limit + 1` rows. The dates are whole
 * UTC days: from midnight of `created_from` to the end of `created_to`.
 */
export function paymentsPageSql(filters: PaymentFilters): { sql: string; params: unknown[] } {
  const spec = TABS[filters.tab];
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (filters.status !== undefined) add('status = ?', filters.status);
  if (filters.channel !== undefined && spec.channels) add('channel = ?', filters.channel);
  if (filters.reference !== undefined && spec.referenceColumn) add(`${spec.referenceColumn} = ?`, filters.reference);
  if (filters.charge !== undefined && spec.chargeColumn) add(`${spec.chargeColumn} = ?`, filters.charge);
  if (filters.createdFrom !== undefined) add('created_at >= ?::timestamptz', `${filters.createdFrom}T00:00:00Z`);
  if (filters.createdTo !== undefined) add('created_at < ?::timestamptz', dayAfter(filters.createdTo));
  if (filters.cursor) add('(created_at, id) < (?::timestamptz, ?)', filters.cursor.createdAt, filters.cursor.id);
  return { sql: `${clauses.map((c) => ` and ${c}`).join('')} order by created_at desc, id desc limit ?`, params: [...params, filters.limit + 1] };
}

/** A charge's refunds or disputes (its detail page), newest first, at most `limit` (+1 to tell there are more). */
export function ofChargeSql(chargeId: string, limit: number): { sql: string; params: unknown[] } {
  return { sql: ' and charge_id = ? order by created_at desc, id desc limit ?', params: [chargeId, limit + 1] };
}

/** The list page's query string for these filters (without the cursor unless given), for links. */
export function filterQuery(filters: PaymentFilters, cursor?: string): string {
  const q = new URLSearchParams({ type: filters.tab });
  if (filters.status) q.set('status', filters.status);
  if (filters.channel) q.set('channel', filters.channel);
  if (filters.reference) q.set('reference', filters.reference);
  if (filters.charge) q.set('charge', filters.charge);
  if (filters.createdFrom) q.set('created_from', filters.createdFrom);
  if (filters.createdTo) q.set('created_to', filters.createdTo);
  if (filters.limit !== DEFAULT_PAGE_SIZE) q.set('limit', String(filters.limit));
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}
