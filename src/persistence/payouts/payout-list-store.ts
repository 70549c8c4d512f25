import type { Environment } from '../../domain/environment';
import type { PayoutRecord } from '../../domain/payout';
import { rowToPayout } from './payout-mapping';
import type { Orm } from '../orm';

/**
 * One page of the caller's payouts: `page` is the filter, order and limit clause that
 * src/services/list-filters.ts builds from the validated query (column names from code, values bound).
 * Newest first (created_at, then id), `limit + 1` rows, on the index payouts_scope_created.
 */
export async function listPayouts(orm: Orm, scope: { merchantId: string; environment: Environment }, page: { sql: string; params: unknown[] }): Promise<PayoutRecord[]> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`select * from payouts where merchant_id = ? and environment = ?${page.sql}`, [scope.merchantId, scope.environment, ...page.params]);
  return rows.map(rowToPayout);
}
