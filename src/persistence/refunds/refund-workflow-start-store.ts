import type { RefundRecord } from '../../domain/refund';
import { rowToRefund } from './refund-mapping';
import type { Orm } from '../orm';
import { TEXT_ARRAY } from '../sql-values';

/** The start relay's query (parameters: seconds, limit); exported for its plan test (test/system/relay-claim-plans.test.ts). */
export const UNSTARTED_REFUNDS_SQL = `select * from refunds
     where workflow_started_at is null and status = 'pending' and created_at < now() - make_interval(secs => ?)
     order by created_at limit ?`;

/**
 * Pending refunds whose workflow was never confirmed started (`workflow_started_at` null), written at
 * least `olderThanSeconds` ago (database clock), oldest first, at most `limit`. Uses the partial
 * index refunds_workflow_unstarted_open (its predicate is this
 * query's: a payment that ended unconfirmed is not in it).
 */
export async function findUnstartedRefunds(orm: Orm, olderThanSeconds: number, limit: number): Promise<RefundRecord[]> {
  const rows = await orm.em.fork().execute<Record<string, unknown>[]>(
    UNSTARTED_REFUNDS_SQL,
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
