import { settlementEntryObject, type SettlementEntryRecord } from '../domain/settlement';
import type { SettlementEntryCursor } from '../persistence/settlements/settlement-entries-store';
import { parseLimit, strictQuery } from '../services/list-filters';
import { listCursor, renderList } from './routes/list-page';

/**
 * Paging of `GET /v1/settlements/{id}/entries` (the list conventions of INTERFACE.md: `limit` 1–100,
 * default 10; `cursor` = a `next_cursor` of this list, unchanged). Entries are ledger postings, keyed
 * by transfer id, so the cursor is the shared list cursor (list-page.ts) over (created_at,
 * transfer_id). Any other parameter, a repeated one, or a bad value is 400 `invalid_request` with `param`.
 */
export interface SettlementEntryPage {
  limit: number;
  cursor: SettlementEntryCursor | null;
}

/** `<resource id>:<step>`, as src/domain/*-ledger.ts names transfers. */
const TRANSFER_ID = /^[A-Za-z0-9_]{1,64}:[a-z_]{1,32}$/;
const isTransferId = (id: string) => TRANSFER_ID.test(id);

export function parseEntryPage(query: Record<string, unknown>): SettlementEntryPage {
  const { limit, cursor } = strictQuery(query, ['limit', 'cursor'], 'parameter');
  const position = listCursor(cursor, isTransferId);
  return { limit: parseLimit(limit), cursor: position ? { createdAt: position.createdAt, transferId: position.id } : null };
}

/** The list envelope over entries fetched with `limit + 1`, newest first. */
export function renderEntryPage(rows: SettlementEntryRecord[], limit: number): Record<string, unknown> {
  return renderList(
    rows.map((entry) => ({ ...entry, id: entry.transferId })),
    limit,
    settlementEntryObject,
  );
}
