/**
 * A text[] parameter for raw queries: the query layer expands JS arrays into lists, so arrays travel
 * as JSON (`textArray` in the SQL, `JSON.stringify(values)` as the parameter).
 */
export const TEXT_ARRAY = 'array(select jsonb_array_elements_text(?::jsonb))';

/** Timestamps from raw queries (Date or string) as ISO 8601 UTC. */
export function isoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : new Date(value).toISOString();
}

export function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

/** Opaque list cursor over (created_at, id), newest first. */
export interface ListCursor {
  createdAt: string;
  id: string;
}

export function encodeListCursor(c: ListCursor): string {
  return Buffer.from(`${c.createdAt}|${c.id}`).toString('base64url');
}

export function decodeListCursor(text: string): ListCursor | null {
  const [createdAt, id, extra] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || extra !== undefined || Number.isNaN(Date.parse(createdAt))) return null;
  return { createdAt, id };
}
