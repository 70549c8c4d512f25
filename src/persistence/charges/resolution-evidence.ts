import type { Orm } from '../orm';

/**
 * The partner's evidence an operator gave when resolving a charge (`charges resolve … --evidence`,
 * kept in the `charge.resolve` audit row's state after), the latest one, or null.
 */
export async function resolutionEvidence(orm: Orm, paymentId: string): Promise<string | null> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<Array<{ evidence: string | null }>>(
      `select state_after->>'evidence' as evidence from operator_audit where payment_id = ? and action = 'charge.resolve' order by created_at desc limit 1`,
      [paymentId],
    );
  return rows[0]?.evidence ?? null;
}
