import type { SettlementRetryFacts } from '../../domain/settlement-retry';
import type { Orm } from '../orm';

/**
 * What a failed batch's retry must know before it sends the money again (issue 43, finding 4), read
 * in one statement: whether the batch has a partner reference (it may have reached the partner, so
 * the partner is asked), the late money recorded for it (a late_answers row: the partner paid it after
 * all) and whether the partner's SUCCESSFUL is on record for it (rail_answers).
 */
export async function settlementRetryFacts(orm: Orm, settlementId: string): Promise<SettlementRetryFacts> {
  const rows = await orm.em.fork().execute<Array<{ has_reference: boolean; late_answer: boolean; late_settled_action: string | null; partner_succeeded: boolean }>>(
    `select exists (select 1 from rail_references r where r.payment_id = ?) as has_reference,
            exists (select 1 from late_answers l where l.payment_id = ?) as late_answer,
            (select l.settled_action from late_answers l where l.payment_id = ?) as late_settled_action,
            exists (select 1 from rail_answers a where a.payment_id = ? and a.outcome = 'succeeded') as partner_succeeded`,
    [settlementId, settlementId, settlementId, settlementId],
  );
  const row = rows[0];
  return {
    hasReference: row.has_reference,
    lateAnswer: row.late_answer ? { settledAction: row.late_settled_action } : null,
    partnerSucceeded: row.partner_succeeded,
  };
}
