import { ApiError } from '../domain/errors';
import { settlementEntryObject, type SettlementEntryRecord } from '../domain/settlement';
import type { SettlementEntryCursor } from '../persistence/settlement-entries-store';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from './list-filters';
import { findControlCharacter } from './validate';

/**
 * Paging of `GET /v1/settlements/{id}/entries` (the list conventions of INTERFACE.md: `limit` 1–100,
 * default 10; `cursor` = a `next_cursor` of this list, unchanged). Entries are ledger postings, keyed
 * by transfer id, so the cursor is (created_at, transfer_id), read as strictly as list-page.ts reads
 * the others. Any other parameter, a repeated one, or a bad value is 400 `invalid_request` with `param`.
 */
export interface SettlementEntryPage {
  limit: number;
  cursor: SettlementEntryCursor | null;
}

const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** `<resource id>:<step>`, as src/domain/*-ledger.ts names transfers. */
const TRANSFER_ID = /^[A-Za-z0-9_]{1,64}:[a-z_]{1,32}$/;

const bad = (param: string, message: string) => new ApiError('invalid_request', message, { param });

export function encodeEntryCursor(cursor: SettlementEntryCursor): string {
  return Buffer.from(`${cursor.createdAt}|${cursor.transferId}`).toString('base64url');
}

function decodeEntryCursor(text: string): SettlementEntryCursor | null {
  const parts = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (parts.length !== 2) return null;
  const [createdAt, transferId] = parts;
  if (!ISO_MILLIS.test(createdAt) || !TRANSFER_ID.test(transferId)) return null;
  const time = new Date(createdAt);
  if (Number.isNaN(time.getTime()) || time.toISOString() !== createdAt) return null;
  const cursor = { createdAt, transferId };
  return encodeEntryCursor(cursor) === text ? cursor : null;
}

export function parseEntryPage(query: Record<string, unknown>): SettlementEntryPage {
  for (const [name, value] of Object.entries(query)) {
    if (name !== 'limit' && name !== 'cursor') throw bad(name, `${name} is not a parameter of this list; known: limit, cursor.`);
    if (typeof value !== 'string') throw bad(name, `${name} must be given once.`);
  }
  const control = findControlCharacter(query);
  if (control) throw bad(control.param, control.message);
  const { limit, cursor } = query as { limit?: string; cursor?: string };
  if (limit !== undefined && (!/^[1-9][0-9]{0,2}$/.test(limit) || Number(limit) > MAX_LIST_LIMIT)) throw bad('limit', `limit must be an integer from 1 to ${MAX_LIST_LIMIT}.`);
  const decoded = cursor === undefined ? null : decodeEntryCursor(cursor);
  if (cursor !== undefined && !decoded) throw bad('cursor', 'cursor is not one this API returned for this list: pass next_cursor unchanged.');
  return { limit: limit === undefined ? DEFAULT_LIST_LIMIT : Number(limit), cursor: decoded };
}

/** The list envelope over entries fetched with `limit + 1`, newest first. */
export function renderEntryPage(rows: SettlementEntryRecord[], limit: number): Record<string, unknown> {
  const kept = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = kept[kept.length - 1];
  return {
    object: 'list',
    data: kept.map(settlementEntryObject),
    has_more: hasMore,
    ...(hasMore && last ? { next_cursor: encodeEntryCursor({ createdAt: last.createdAt, transferId: last.transferId }) } : {}),
  };
}
