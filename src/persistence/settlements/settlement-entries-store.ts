import type { SettlementEntryRecord } from '../../domain/settlement';
import { iso } from '../sql-values';
import type { Orm } from '../orm';

/** Position in a batch's entries, newest first: the entry's created_at (ISO, milliseconds) and transfer id. */
export interface SettlementEntryCursor {
  createdAt: string;
  transferId: string;
}

/**
 * One page of the ledger postings a batch swept (`GET /v1/settlements/{id}/entries`), newest first
 * (created_at, then transfer id), `limit + 1` rows, after `cursor` when given, on the index
 * settlement_entries_batch. The batch's own sweep posting (`<stl id>:sweep`, marked so it is never
 * swept again) is not one of them. The caller has checked the batch is the merchant's.
 */
export async function listSettlementEntries(orm: Orm, settlementId: string, page: { limit: number; cursor: SettlementEntryCursor | null }): Promise<SettlementEntryRecord[]> {
  const after = page.cursor ? ` and (se.created_at, se.transfer_id) < (?::timestamptz, ?)` : '';
  const rows = await orm.em.fork().execute<{ transfer_id: string; kind: string; resource_id: string; amount: string; created_at: Date | string }[]>(
    `select se.transfer_id, le.kind, le.resource_id, le.amount::text as amount, se.created_at
     from settlement_entries se join ledger_entries le on le.transfer_id = se.transfer_id and le.account = se.account
     where se.settlement_id = ? and se.transfer_id <> ?${after}
     order by se.created_at desc, se.transfer_id desc limit ?`,
    [settlementId, `${settlementId}:sweep`, ...(page.cursor ? [page.cursor.createdAt, page.cursor.transferId] : []), page.limit + 1],
  );
  return rows.map((r) => ({ transferId: r.transfer_id, kind: r.kind, resourceId: r.resource_id, amount: Number(r.amount), createdAt: iso(r.created_at) }));
}
