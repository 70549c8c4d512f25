import type { PayoutRecord } from '../../domain/payout';
import { rowToPayout } from './payout-mapping';
import type { Orm } from '../orm';
import { TEXT_ARRAY } from '../sql-values';

/** The start relay's query (parameters: seconds, limit); exported for its plan test (test/system/relay-claim-plans.test.ts). */
export const UNSTARTED_PAYOUTS_SQL = `select * from payouts
     where workflow_started_at is null and status in ('pending', 'held_for_review') and created_at < now() - make_interval(secs => ?)
     order by created_at limit ?`;

/**
 * Non-terminal payouts whose workflow was never confirmed started (`workflow_started_at` null),
 * written at least `olderThanSeconds` ago (database clock), oldest first, at most `limit`. Uses the
 * partial index payouts_workflow_unstarted_open (its predicate is this
 * query's: a payment that ended unconfirmed is not in it).
 */
export async function findUnstartedPayouts(orm: Orm, olderThanSeconds: number, limit: number): Promise<PayoutRecord[]> {
  const rows = await orm.em.fork().execute<Record<string, unknown>[]>(
    UNSTARTED_PAYOUTS_SQL,
    [olderThanSeconds, limit],
  );
  return rows.map(rowToPayout);
}

/** Marks these payouts' workflows as known to exist (started, or found already started, by the relay). */
export async function markPayoutWorkflowsStarted(orm: Orm, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await orm.em
    .getConnection()
    .execute(`update payouts set workflow_started_at = now() where id = any(${TEXT_ARRAY}) and workflow_started_at is null`, [JSON.stringify(ids)]);
}
