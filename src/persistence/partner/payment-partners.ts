import { PAYMENT_REVIEW_ID_PREFIX as REVIEW_PREFIX } from '../../domain/payment-review';
import type { PaymentRail } from '../../domain/rail-routes';
import type { Orm } from '../orm';

/**
 * Which partner each payment went to (its `rail`, issue 45), for `payments stuck` (issue 46): a
 * charge's, payout's and settlement batch's own; a refund's own, else its charge's; a dispute's
 * charge's. A row from before the column (no `rail`) went to `momo` in live and to the sandbox in the
 * sandbox, as the API shows it. A payment review (`review-<id>`) is its payment's. Ids of no payment
 * are left out of the answer.
 */

const DEFAULT_RAIL = (table: string) => `case ${table}.environment when 'live' then 'momo' else 'sandbox' end`;

export async function partnersOfPayments(orm: Orm, ids: readonly string[]): Promise<Map<string, PaymentRail>> {
  const paymentId = (id: string) => (id.startsWith(REVIEW_PREFIX) ? id.slice(REVIEW_PREFIX.length) : id);
  const wanted = [...new Set(ids.map(paymentId))];
  if (wanted.length === 0) return new Map();
  const rows = await orm.em.fork().execute<{ id: string; rail: PaymentRail }[]>(
    `with ids as (select jsonb_array_elements_text(?::jsonb) as id)
     select c.id, coalesce(c.rail, ${DEFAULT_RAIL('c')}) as rail from charges c join ids on ids.id = c.id
     union all select p.id, coalesce(p.rail, ${DEFAULT_RAIL('p')}) from payouts p join ids on ids.id = p.id
     union all select s.id, coalesce(s.rail, ${DEFAULT_RAIL('s')}) from settlements s join ids on ids.id = s.id
     union all select r.id, coalesce(r.rail, c.rail, ${DEFAULT_RAIL('r')}) from refunds r join ids on ids.id = r.id left join charges c on c.id = r.charge_id
     union all select d.id, coalesce(c.rail, ${DEFAULT_RAIL('d')}) from disputes d join ids on ids.id = d.id left join charges c on c.id = d.charge_id`,
    [JSON.stringify(wanted)],
  );
  const byPayment = new Map(rows.map((row) => [row.id, row.rail]));
  const answer = new Map<string, PaymentRail>();
  for (const id of ids) {
    const rail = byPayment.get(paymentId(id));
    if (rail) answer.set(id, rail);
  }
  return answer;
}
