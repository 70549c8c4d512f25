import type { ChargeRecord } from '../../domain/charge';
import { rowToRecord } from './charge-mapping';
import { Charge } from '../entities';
import type { Orm } from '../orm';
import { TEXT_ARRAY } from '../sql-values';

/** The start relay's query (parameters: seconds, limit); exported for its plan test (test/system/relay-claim-plans.test.ts). */
export const UNSTARTED_CHARGES_SQL = `select id from charges
     where workflow_started_at is null and status in ('pending', 'awaiting_action') and created_at < now() - make_interval(secs => ?)
     order by created_at limit ?`;

/**
 * Non-terminal charges whose workflow was never confirmed started (`workflow_started_at` null),
 * written at least `olderThanSeconds` ago (database clock), oldest first, at most `limit`. Uses the
 * partial index charges_workflow_unstarted_open (its predicate is this
 * query's: a payment that ended unconfirmed is not in it).
 */
export async function findUnstartedCharges(orm: Orm, olderThanSeconds: number, limit: number): Promise<ChargeRecord[]> {
  const em = orm.em.fork();
  const ids = await em.execute<{ id: string }[]>(
    UNSTARTED_CHARGES_SQL,
    [olderThanSeconds, limit],
  );
  if (ids.length === 0) return [];
  const rows = await em.find(Charge, { id: { $in: ids.map((r) => r.id) } }, { orderBy: { createdAt: 'asc' } });
  return rows.map(rowToRecord);
}

/** Marks these charges' workflows as known to exist (found already started by the relay). */
export async function markChargeWorkflowsStarted(orm: Orm, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await orm.em
    .getConnection()
    .execute(`update charges set workflow_started_at = now() where id = any(${TEXT_ARRAY}) and workflow_started_at is null`, [JSON.stringify(ids)]);
}
