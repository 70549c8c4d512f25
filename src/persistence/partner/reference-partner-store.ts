import { isPartnerName, type PartnerName } from '../../domain/rail-routes';
import { isReferenceId } from '../../rail/momo-protocol';
import type { Orm } from '../orm';

/**
 * The partner a reference was sent to (issue 45): the payment's `rail_references.partner`, copied
 * from the payment when its reference was chosen, or, for the return transfer of a charge's late
 * money (its reference kept on late_answers), the charge's. A reference from before issue 45 (no
 * partner recorded), or one we never made, is the mobile-money partner's: the only one there was.
 */
export async function partnerOfReference(orm: Orm, referenceId: string): Promise<PartnerName> {
  if (!isReferenceId(referenceId)) return 'momo';
  const rows = await orm.em.fork().execute<Array<{ partner: string | null }>>(
    `select coalesce(
       (select partner from rail_references where reference_id = ?::uuid limit 1),
       (select partner from rail_attempts where reference_id = ?::uuid limit 1),
       (select r.partner from late_answers la join rail_references r on r.payment_id = la.payment_id where la.return_reference_id = ?::uuid limit 1)
     ) as partner`,
    [referenceId, referenceId, referenceId],
  );
  const partner = rows[0]?.partner;
  return isPartnerName(partner) ? partner : 'momo';
}
