import { ApiError } from '../../domain/errors';
import type { ListCursor } from '../../persistence/sql-values';
import type { ListFilterParser, ListFilters, ListFilterSpec } from '../../services/list-filters';
import { createdAfterDay, createdBeforeDay } from './day-range';
import { CHARGE_LIST, DISPUTE_LIST, PAYOUT_LIST, REFUND_LIST, SETTLEMENT_LIST } from '../../services/payment-lists';

/**
 * The Payments page's filters are the API lists' own: each tab reads its GET form with the very
 * parser of its API list (src/services/payment-lists.ts: CHARGE_LIST, PAYOUT_LIST, REFUND_LIST,
 * DISPUTE_LIST, SETTLEMENT_LIST) and hands the store the clause that parser builds. Two differences,
 * both in how the form is read, never in the query: a value the API would refuse is not applied but
 * named on the page (each field is tried alone first), and the form's dates are whole UTC days, both
 * included (`created_from` D is the API's `created_after` D-1T23:59:59.999999Z, `created_to` D its
 * `created_before` D+1).
 */

export const PAYMENT_TABS = ['charges', 'payouts', 'refunds', 'disputes', 'settlements'] as const;
export type PaymentTab = (typeof PAYMENT_TABS)[number];

export interface TabSpec extends ListFilterSpec {
  label: string;
  list: ListFilterParser;
}

const tab = (label: string, list: ListFilterParser): TabSpec => ({ label, list, ...list.spec });

export const TABS: Record<PaymentTab, TabSpec> = {
  charges: tab('Charges', CHARGE_LIST),
  payouts: tab('Payouts', PAYOUT_LIST),
  refunds: tab('Refunds', REFUND_LIST),
  disputes: tab('Disputes', DISPUTE_LIST),
  settlements: tab('Settlements', SETTLEMENT_LIST),
};

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 20;

/** What the form asked for, as far as the API's parser took it (`ignored` names the fields it refused). */
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
  /** The API parser's result, which the store's clause is built from. */
  list: ListFilters;
}

/** The API query of one form field (its name and value in the API's terms), or null when it cannot be one. */
function apiField(name: string, value: string): [string, string] | null {
  if (name === 'created_from') {
    const after = createdAfterDay(value);
    return after ? ['created_after', after] : null;
  }
  if (name === 'created_to') {
    const before = createdBeforeDay(value);
    return before ? ['created_before', before] : null;
  }
  return [name, value];
}

const FORM_FIELDS = ['limit', 'cursor', 'status', 'channel', 'reference', 'charge', 'created_from', 'created_to'] as const;

export function parsePaymentFilters(query: Record<string, unknown>): PaymentFilters {
  const typeText = typeof query.type === 'string' ? query.type : undefined;
  const chosen = (PAYMENT_TABS as readonly string[]).includes(typeText ?? '') ? (typeText as PaymentTab) : 'charges';
  const { list } = TABS[chosen];
  const ignored: string[] = typeText !== undefined && typeText !== chosen ? ['type'] : [];
  const accepted: Record<string, string> = {};
  const form: Record<string, string> = {};
  for (const name of FORM_FIELDS) {
    const value = query[name];
    if (value === undefined || value === '') continue;
    const field = typeof value === 'string' ? apiField(name, value) : null;
    if (!field || !accepts(list, { [field[0]]: field[1] })) {
      ignored.push(name);
      continue;
    }
    accepted[field[0]] = field[1];
    form[name] = value as string;
  }
  if (accepted.limit === undefined) accepted.limit = String(DEFAULT_PAGE_SIZE);
  // Each field alone was fine; together only the created range can clash (to before from): drop `to`.
  if (!accepts(list, accepted)) {
    delete accepted.created_before;
    delete form.created_to;
    ignored.push('created_to');
  }
  const parsed = list.parse(accepted);
  return {
    tab: chosen,
    limit: parsed.limit,
    cursor: parsed.cursor,
    ...(parsed.status !== undefined ? { status: parsed.status } : {}),
    ...(parsed.channel !== undefined ? { channel: parsed.channel } : {}),
    ...(parsed.reference !== undefined ? { reference: parsed.reference } : {}),
    ...(parsed.charge !== undefined ? { charge: parsed.charge } : {}),
    ...(form.created_from !== undefined ? { createdFrom: form.created_from } : {}),
    ...(form.created_to !== undefined ? { createdTo: form.created_to } : {}),
    ignored,
    list: parsed,
  };
}

/** Whether the API's parser takes this query (it answers 400 `invalid_request` for anything it does not). */
function accepts(list: ListFilterParser, query: Record<string, string>): boolean {
  try {
    list.parse(query);
    return true;
  } catch (error) {
    if (error instanceof ApiError) return false;
    throw error;
  }
}

/** The clause the list stores take, as the API's parser builds it: ` and …` conditions, newest first, `limit + 1` rows. */
export function paymentsPageSql(filters: PaymentFilters): { sql: string; params: unknown[] } {
  return TABS[filters.tab].list.pageSql(filters.list);
}

/** A charge's refunds or disputes (its detail page), newest first, at most `limit` (+1 to tell there are more): the API list's `charge` filter. */
export function ofChargeSql(list: ListFilterParser, chargeId: string, limit: number): { sql: string; params: unknown[] } {
  return list.pageSql(list.parse({ charge: chargeId, limit: String(limit) }));
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
