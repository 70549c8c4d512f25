import type { RefundRecord } from '../../domain/refund';
import { rowToRefund } from './refund-mapping';
import type { Orm } from '../orm';
import { TEXT_ARRAY } from '../sql-values';

/**
 * Pending refunds whose workflow was never confirmed started (`workflow_started_at` null), written at
 * least `olderThanSeconds` ago (database clock), oldest first, at most `limit`. Uses the partial
 * index refunds_workflow_unstarted.
 */
export async function findUnstartedRefunds(orm: Orm, olderThanSeconds: number, limit: number): Promise<RefundRecord[]> {
  const rows = await orm.em.fork().execute<Record<string, unknown>[]>(
    `select * from refunds
     where workflow_started_at is null and status = 'pending' and created_at < now() - make_interval(secs => ?)
     order by created_at limit ?`,
    [olderThanSeconds, limit],
  );
  return rows.map(rowToRefund);
}

/** Marks these refunds' workflows as known to exist (started by the API or the relay, or found started). */
export async function markRefundWorkflowsStarted(orm: Orm, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await orm.em
    .getConnection()
    .execute(`update refunds set workflow_started_at = now() where id = any(${TEXT_ARRAY}) and workflow_started_at is null`, [JSON.stringify(ids)]);
}
