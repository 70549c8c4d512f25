import type { EntityManager } from '@mikro-orm/postgresql';
import type { RailProduct } from '../../rail/partner-rail';
import { isReferenceId } from '../../rail/momo-protocol';
import type { OurPayment } from '../../reconcile/match';
import { returnsForStatement, type ReturnTransfer } from '../partner/return-reference';
import type { PartnerName } from '../../domain/rail-routes';

type Row = { reference_id: string; payment_id: string; merchant_id: string | null; amount: string | null; currency: string | null; status: string | null; environment: string; sent_day: string };

/**
 * Our side of a statement: the payments of `product` whose rail reference a line names, and those
 * whose reference was made on `date` (UTC) in live (the ones the statement should list). A
 * reference whose payment row is gone is left out (it then shows as missing_here). A `disbursement`
 * statement also lists the refunds (issue 45: MoMo's refunds are of the disbursement product, their
 * references of resource `refund`) and the return transfers of late money (src/persistence/partner/return-reference.ts):
 * each is one of ours too, under the charge it returns (`returnOf`), with the return's own status.
 *
 * Per partner (issue 45): only the references of `partner` (default `momo`; a reference from before partners were
 * recorded is MoMo's), and the returns of the charges whose reference is that partner's (a return
 * whose charge has no reference is MoMo's): a statement of one partner never finds the other's
 * payments missing there, nor matches them.
 */
export async function ourPaymentsFor(em: EntityManager, product: RailProduct, date: string, references: readonly string[], partner: PartnerName = 'momo'): Promise<OurPayment[]> {
  const refs = [...new Set(references.map((r) => r.trim().toLowerCase()).filter(isReferenceId))];
  const rows = await em.execute<Row[]>(
    `select r.reference_id::text as reference_id, r.payment_id, r.environment, to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD') as sent_day,
       coalesce(c.merchant_id, p.merchant_id, s.merchant_id, f.merchant_id) as merchant_id,
       coalesce(c.amount, p.amount, s.amount, f.amount)::text as amount,
       coalesce(c.currency, p.currency, s.currency, f.currency) as currency,
       coalesce(c.status, p.status, s.status, f.status) as status
     from rail_references r
       left join charges c on c.id = r.payment_id
       left join payouts p on p.id = r.payment_id
       left join settlements s on s.id = r.payment_id
       left join refunds f on f.id = r.payment_id
     where r.product in (select jsonb_array_elements_text(?::jsonb))
       and coalesce(r.partner, 'momo') = ?
       and (r.reference_id in (select jsonb_array_elements_text(?::jsonb)::uuid)
         or (r.environment = 'live' and r.created_at >= ?::date at time zone 'UTC' and r.created_at < (?::date + 1) at time zone 'UTC'))`,
    [JSON.stringify(product === 'disbursement' ? ['disbursement', 'refund'] : [product]), partner, JSON.stringify(refs), date, date],
  );
  return rows
    .filter((r) => r.amount !== null && r.currency !== null && r.status !== null && r.merchant_id !== null)
    .map((r) => ({
      referenceId: r.reference_id,
      paymentId: r.payment_id,
      merchantId: r.merchant_id!,
      amount: Number(r.amount),
      currency: r.currency!,
      status: r.status!,
      environment: r.environment,
      sentDay: r.sent_day,
    }))
    .concat(product === 'disbursement' ? await returnsOf(em, partner, date, refs) : []);
}

/** Our status of a return transfer as matching reads it: succeeded or failed once the partner said, else pending (open). */
const RETURN_STATUS: Record<string, string> = { succeeded: 'succeeded', failed: 'failed' };

async function returnsOf(em: EntityManager, partner: PartnerName, date: string, refs: readonly string[]): Promise<OurPayment[]> {
  return (await ofPartner(em, partner, await returnsForStatement(em, date, refs))).map((r) => ({
    referenceId: r.referenceId,
    paymentId: r.paymentId,
    merchantId: r.merchantId,
    amount: r.amount,
    currency: r.currency,
    status: RETURN_STATUS[r.returnStatus] ?? 'pending',
    environment: r.environment,
    sentDay: r.sentDay,
    returnOf: true,
  }));
}

/** The returns whose charge's reference is `partner`'s (MoMo's when the charge has none, or one from before partners were recorded). */
async function ofPartner(em: EntityManager, partner: PartnerName, returns: ReturnTransfer[]): Promise<ReturnTransfer[]> {
  if (returns.length === 0) return returns;
  const rows = await em.execute<Array<{ payment_id: string; partner: string }>>(
    `select payment_id, coalesce(partner, 'momo') as partner from rail_references where payment_id in (select jsonb_array_elements_text(?::jsonb))`,
    [JSON.stringify([...new Set(returns.map((r) => r.paymentId))])],
  );
  const partnerOf = new Map(rows.map((r) => [r.payment_id, r.partner]));
  return returns.filter((r) => (partnerOf.get(r.paymentId) ?? 'momo') === partner);
}
