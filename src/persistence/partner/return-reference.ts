import type { EntityManager } from '@mikro-orm/postgresql';
import { isReferenceId } from '../../rail/momo-protocol';
import type { Orm } from '../orm';

/**
 * The partner references of return transfers (issue 43, finding 2). A charge's late money settled
 * with `return` goes back to the payer as a transfer (`disbursement`) with its own reference, chosen
 * once by settle-late and kept on the late_answers row (`return_reference_id`), not in
 * rail_references: that table holds one reference per payment (its primary key), the payment's own
 * request, and every rail step, review and reconciliation rule reads it as such. A return is a
 * second transfer for the same payment, followed by that payment's review, so its reference is
 * looked up here, beside the payment's own: the callback route wakes the review with it, and the
 * statement import matches its line to the review's payment instead of `missing_here`.
 */

/** A return transfer as the partner knows it: the charge it returns, and where it stands with us. */
export interface ReturnTransfer {
  referenceId: string;
  /** The charge whose late money is returned (its review, `review-<paymentId>`, follows the transfer). */
  paymentId: string;
  merchantId: string;
  environment: string;
  amount: number;
  currency: string;
  /** requested, submitted, succeeded or failed (late_answers.return_status). */
  returnStatus: string;
  /** The UTC day the return was settled (requested), YYYY-MM-DD. */
  sentDay: string;
}

type Row = { reference_id: string; payment_id: string; merchant_id: string; environment: string; amount: string; currency: string; return_status: string | null; sent_day: string };

const toTransfer = (r: Row): ReturnTransfer => ({
  referenceId: r.reference_id,
  paymentId: r.payment_id,
  merchantId: r.merchant_id,
  environment: r.environment,
  amount: Number(r.amount),
  currency: r.currency,
  returnStatus: r.return_status ?? 'requested',
  sentDay: r.sent_day,
});

const COLUMNS = `return_reference_id::text as reference_id, payment_id, merchant_id, environment, amount::text as amount, currency, return_status,
  to_char(coalesce(settled_at, recorded_at) at time zone 'UTC', 'YYYY-MM-DD') as sent_day`;

/** The return transfer a partner reference belongs to (the callback route's lookup, after the payments'); null when none. Returns are transfers: `disbursement` only. */
export async function returnOfReference(orm: Orm, product: string, referenceId: string): Promise<ReturnTransfer | null> {
  if (product !== 'disbursement' || !isReferenceId(referenceId)) return null;
  const rows = await orm.em.getConnection().execute<Row[]>(`select ${COLUMNS} from late_answers where return_reference_id = ?::uuid`, [referenceId]);
  return rows[0] ? toTransfer(rows[0]) : null;
}

/**
 * The return transfers a `disbursement` statement may list: those whose reference a line names, and
 * those settled on `date` (UTC) in live.
 */
export async function returnsForStatement(em: Pick<EntityManager, 'execute'>, date: string, references: readonly string[]): Promise<ReturnTransfer[]> {
  const rows = await em.execute<Row[]>(
    `select ${COLUMNS} from late_answers
     where return_reference_id is not null
       and (return_reference_id in (select jsonb_array_elements_text(?::jsonb)::uuid)
         or (environment = 'live' and settled_at >= ?::date at time zone 'UTC' and settled_at < (?::date + 1) at time zone 'UTC'))`,
    [JSON.stringify(references), date, date],
  );
  return rows.map(toTransfer);
}
