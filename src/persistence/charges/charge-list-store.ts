import type { ChargeRecord } from '../../domain/charge';
import type { Environment } from '../../domain/environment';
import { rowToRecord } from './charge-mapping';
import { Charge } from '../entities';
import type { Orm } from '../orm';

/**
 * One page of the caller's charges: `page` is the filter, order and limit clause that
 * src/services/list-filters.ts builds from the validated query (column names from code, values bound).
 * Newest first, `limit + 1` rows (the extra one says there is more), on the index on (merchant_id,
 * environment, created_at desc).
 */
export async function listCharges(orm: Orm, scope: { merchantId: string; environment: Environment }, page: { sql: string; params: unknown[] }): Promise<ChargeRecord[]> {
  const em = orm.em.fork();
  const rows = await em.execute<Record<string, unknown>[]>(`select * from charges where merchant_id = ? and environment = ?${page.sql}`, [
    scope.merchantId,
    scope.environment,
    ...page.params,
  ]);
  return rows.map((row) => rowToRecord(em.map(Charge, row)));
}
