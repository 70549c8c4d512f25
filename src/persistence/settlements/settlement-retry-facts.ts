import type { SettlementRetryFacts } from '../../domain/settlement-retry';
import type { Orm } from '../orm';

/**
 * What a failed batch's retry must know before it sends the money again (issue 43, finding 4), read
 * in one statement: whether the batch has a partner reference (it may have reached the partner, so
 * the partner is asked), the late money recorded for it (a late_answers row: the partner paid it after
 * all), whether the partner's SUCCESSFUL is on record for it (rail_answers), and another failed batch
 * of the same balance paid after all and not settled (the new batch would sweep its released money).
 */
export async function settlementRetryFacts(orm: Orm, settlementId: string): Promise<SettlementRetryFacts> {
  const rows = await orm.em.fork().execute<Array<{ has_reference: boolean; late_answer: boolean; late_settled_action: string | null; partner_succeeded: boolean; other_late_paid: string | null }>>(
    `select exists (select 1 from rail_references r where r.payment_id = ?) as has_reference,
            exists (select 1 from late_answers l where l.payment_id = ?) as late_answer,
            (select l.settled_action from late_answers l where l.payment_id = ?) as late_settled_action,
            exists (select 1 from rail_answers a where a.payment_id = ? and a.outcome = 'succeeded') as partner_succeeded,
            (select o.id from settlements b join settlements o
               on o.merchant_id = b.merchant_id and o.environment = b.environment and o.currency = b.currency and o.id <> b.id
             where b.id = ? and o.status = 'failed'
               and (exists (select 1 from late_answers l where l.payment_id = o.id and l.settled_action is null)
                    or exists (select 1 from rail_answers a where a.payment_id = o.id and a.outcome = 'succeeded'))
             order by o.created_at limit 1) as other_late_paid`,
    [settlementId, settlementId, settlementId, settlementId, settlementId],
  );
  const row = rows[0];
  return {
    hasReference: row.has_reference,
    lateAnswer: row.late_answer ? { settledAction: row.late_settled_action } : null,
    partnerSucceeded: row.partner_succeeded,
    otherLatePaid: row.other_late_paid,
  };
}
