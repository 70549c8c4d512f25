import type { Environment } from '../../domain/environment';
import type { SettlementRecord } from '../../domain/settlement';
import type { Orm } from '../orm';
import { rowToSettlement } from './settlement-mapping';

/**
 * One page of the caller's settlement batches: `page` is the filter, order and limit clause that
 * src/services/list-filters.ts builds from the validated query (column names from code, values bound).
 * Newest first (created_at, then id), `limit + 1` rows, on the index settlements_scope_created.
 */
export async function listSettlements(orm: Orm, scope: { merchantId: string; environment: Environment }, page: { sql: string; params: unknown[] }): Promise<SettlementRecord[]> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`select * from settlements where merchant_id = ? and environment = ?${page.sql}`, [scope.merchantId, scope.environment, ...page.params]);
  return rows.map(rowToSettlement);
}
