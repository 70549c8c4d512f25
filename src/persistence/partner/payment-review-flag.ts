import type { Environment } from '../../domain/environment';
import type { Orm } from '../orm';

/**
 * Whether a payment is under review (issue 29), for the merchant portal's payment page: an open
 * reconciliation break on it (reconciliation_breaks, status 'open') or late money recorded for it and
 * not settled yet (late_answers, settled_action null). Scoped to the merchant and environment. Only
 * the yes or no leaves this function: the merchant never sees the break's kind, amounts, the
 * partner's status, the reasons or who is looking at it.
 */
export async function isUnderReview(orm: Orm, paymentId: string, merchantId: string, environment: Environment): Promise<boolean> {
  const rows = await orm.em.fork().execute<Array<{ under_review: boolean }>>(
    `select exists (select 1 from reconciliation_breaks where payment_id = ? and merchant_id = ? and environment = ? and status = 'open')
         or exists (select 1 from late_answers where payment_id = ? and merchant_id = ? and environment = ? and settled_action is null) as under_review`,
    [paymentId, merchantId, environment, paymentId, merchantId, environment],
  );
  return rows[0]?.under_review === true;
}
