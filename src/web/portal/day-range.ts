import { ApiError } from '../../domain/errors';
import { isoInstant } from '../../services/list-filters';

/**
 * The portal's date filters are whole UTC days, both ends included (what a date input sends:
 * `YYYY-MM-DD`); the API's `created_after` / `created_before` are exclusive instants. These turn
 * the one into the other.
 */

const DAY_MS = 86_400_000;

/** A real calendar date `YYYY-MM-DD` as the API reads one (UTC midnight, in milliseconds), else null. */
export function utcDay(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  try {
    return isoInstant('date', text).ms;
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/** `created_after` for a range starting on `day` (included): the last microsecond before its midnight. */
export function createdAfterDay(day: string): string | null {
  const ms = utcDay(day);
  return ms === null ? null : `${new Date(ms - DAY_MS).toISOString().slice(0, 10)}T23:59:59.999999Z`;
}

/** `created_before` for a range ending on `day` (included): the midnight after it. */
export function createdBeforeDay(day: string): string | null {
  const ms = utcDay(day);
  return ms === null ? null : new Date(ms + DAY_MS).toISOString();
}
