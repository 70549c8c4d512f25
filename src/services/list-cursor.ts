import { ApiError } from '../domain/errors';
import { isIdOf, type IdKind } from '../domain/ids';
import { encodeListCursor, type ListCursor } from '../persistence/sql-values';

/** How encodeListCursor writes a timestamp: `Date.toISOString()`, milliseconds, UTC. */
const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Reads a `cursor` query parameter this API handed out for a list of `kind`, strictly: the exact
 * encoding encodeListCursor writes, a real UTC timestamp in `toISOString()` form, and a well-formed
 * id of the list's kind (or an id the `kind` function accepts, for a list whose ids are not resource
 * ids). Anything else (a date PostgreSQL would refuse, a NUL in the id, another list's cursor) is 400
 * `invalid_request` with `param: cursor`, before any query.
 */
export function listCursor(text: string | undefined, kind: IdKind | ((id: string) => boolean)): ListCursor | null {
  if (text === undefined) return null;
  const cursor = strictCursor(text, kind);
  if (!cursor) throw new ApiError('invalid_request', 'cursor is not one this API returned for this list: pass next_cursor unchanged.', { param: 'cursor' });
  return cursor;
}

function strictCursor(text: string, kind: IdKind | ((id: string) => boolean)): ListCursor | null {
  const parts = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (parts.length !== 2) return null;
  const [createdAt, id] = parts;
  if (!ISO_MILLIS.test(createdAt)) return null;
  const time = new Date(createdAt);
  if (Number.isNaN(time.getTime()) || time.toISOString() !== createdAt) return null;
  if (typeof kind === 'function' ? !kind(id) : !isIdOf(kind, id)) return null;
  const cursor = { createdAt, id };
  return encodeListCursor(cursor) === text ? cursor : null;
}
